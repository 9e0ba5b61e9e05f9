import * as z from 'zod/mini';
import { InvalidInputError } from '../errors.js';
import { sha256Hex } from '../hashing.js';
import { parseInput } from '../internal/validation.js';
import { tableNameSchema } from '../rules.js';
import type { Claim, FencedTransactionParts, HolderTransition, TransactItem } from '../store/index.js';
import { completeTransition, ExpressionBuilder, type JobOutcome, stepTransition } from '../store/index.js';
import {
  attributeMapSchema,
  attributePathSchema,
  type BusinessCondition,
  businessConditionSchema,
  renderBusinessCondition,
} from './conditions.js';
import { recordIdentity } from './record-requests.js';

/**
 * One business write of a class A transaction, to a record many operations share (no writer_epoch needed).
 * No `delete`: the worker's role has no DeleteItem (grantWorkerRecordAccess), so a delete would pass every
 * local engine and fail once deployed; mark the record instead (an `update` that sets or removes attributes).
 */
type SharedWrite =
  | {
      readonly kind: 'update';
      readonly tableName: string;
      readonly key: Readonly<Record<string, unknown>>;
      readonly set?: Readonly<Record<string, unknown>>;
      /** Atomic counters: `ADD attribute delta` (e.g. `{ count: -1 }`). */
      readonly add?: Readonly<Record<string, number>>;
      readonly remove?: readonly string[];
      readonly where?: BusinessCondition;
    }
  | {
      readonly kind: 'put';
      readonly tableName: string;
      readonly key: Readonly<Record<string, unknown>>;
      readonly item: Readonly<Record<string, unknown>>;
      readonly where?: BusinessCondition;
    }
  | {
      readonly kind: 'check';
      readonly tableName: string;
      readonly key: Readonly<Record<string, unknown>>;
      readonly where: BusinessCondition;
    };

/**
 * A built transaction, as the store commits it (buildFencedTransaction): my work item's transition first, then
 * business write i as item i + 1; `writes` are the validated writes the items came from.
 */
interface TransactionPlan extends FencedTransactionParts {
  readonly writes: readonly SharedWrite[];
}

/** Where the work item is (the store's workItemLocation): a business write may not touch it too. */
interface WorkItemLocation {
  readonly tableName: string;
  readonly key: Readonly<Record<string, unknown>>;
}

/** TransactWriteItems takes at most 100 items; one is the work item. */
const MAX_SHARED_WRITES = 99;

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// whose first events never reach them does not pay for building them (BENCHMARKS.md figure 5).
const keySchema = z.lazy(() =>
  z
    .record(z.string().check(z.minLength(1)), z.unknown())
    .check(
      z.refine(
        (key) => Object.keys(key).length >= 1 && Object.keys(key).length <= 2,
        'key must have 1 or 2 attributes',
      ),
    ),
);
const base = { tableName: tableNameSchema, key: keySchema };
const sharedWriteSchema = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z
      .strictObject({
        kind: z.literal('update'),
        ...base,
        set: z.optional(attributeMapSchema(z.unknown())),
        add: z.optional(attributeMapSchema(z.number())),
        remove: z.optional(z.array(attributePathSchema)),
        where: z.optional(businessConditionSchema),
      })
      .check(
        z.refine(
          (write) => Object.keys({ ...write.set, ...write.add }).length + (write.remove?.length ?? 0) > 0,
          'an update must set, add or remove something',
        ),
      ),
    z.strictObject({
      kind: z.literal('put'),
      ...base,
      item: z.record(z.string().check(z.minLength(1)), z.unknown()),
      where: z.optional(businessConditionSchema),
    }),
    z.strictObject({
      kind: z.literal('check'),
      ...base,
      where: businessConditionSchema.check(
        z.refine((where) => Object.keys(where).length > 0, 'a check needs a condition'),
      ),
    }),
  ]),
);

/**
 * Validates the business writes: shape, count, and that no item appears twice — neither two writes to one
 * record nor a write to the work item itself (TransactWriteItems refuses both). InvalidInputError otherwise.
 */
function parseSharedWrites(workItem: WorkItemLocation, writes: unknown): SharedWrite[] {
  refuseDeletes(writes);
  const valid = parseInput(
    z.array(sharedWriteSchema).check(z.maxLength(MAX_SHARED_WRITES)),
    writes,
    'fenced transaction writes',
  );
  const seen = new Map<string, number>([[recordIdentity(workItem.tableName, workItem.key), -1]]);
  const issues = valid.flatMap((write, index) => {
    const id = recordIdentity(write.tableName, write.key);
    const earlier = seen.get(id);
    seen.set(id, index);
    if (earlier === undefined) return [];
    const message =
      earlier === -1
        ? 'writes the work item itself, which the transaction already updates'
        : `touches the same item as write ${earlier}; one transaction may not touch an item twice`;
    return [{ path: `${index}`, message }];
  });
  if (issues.length > 0) {
    const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    throw new InvalidInputError(`invalid fenced transaction writes: ${detail}; nothing was written`, issues);
  }
  return valid as SharedWrite[];
}

const DELETE_REFUSED =
  "a class A transaction may not delete (the worker's role has no DeleteItem); use an update that marks the record";

/** A `delete` gets its own reason (not zod's "invalid discriminator"): the deployed worker may not delete. */
function refuseDeletes(writes: unknown): void {
  if (!Array.isArray(writes)) return;
  const issues = writes.flatMap((write, index) =>
    (write as { kind?: unknown } | null)?.kind === 'delete' ? [{ path: `${index}.kind`, message: DELETE_REFUSED }] : [],
  );
  if (issues.length === 0) return;
  const detail = issues.map((issue) => issue.path).join(', ');
  throw new InvalidInputError(
    `invalid fenced transaction writes: ${detail}: ${DELETE_REFUSED}; nothing was written`,
    issues,
  );
}

/** One TransactWriteItems element for a business write. Pure. */
function sharedWriteItem(write: SharedWrite): TransactItem {
  const x = new ExpressionBuilder();
  const condition = renderBusinessCondition(x, write.where);
  const common = { TableName: write.tableName, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  if (write.kind === 'put') {
    const item = { ...write.item, ...write.key };
    return {
      Put: { ...common, Item: item, ...(condition ? { ConditionExpression: condition } : {}), ...x.attributes() },
    };
  }
  const key = { ...write.key };
  if (write.kind === 'check')
    return { ConditionCheck: { ...common, Key: key, ConditionExpression: condition ?? '', ...x.attributes() } };
  const adds = Object.entries(write.add ?? {}).map(([path, delta]) => `${x.name(path)} ${x.value(delta)}`);
  const setRemove = x.update(write.set ?? {}, write.remove ?? []);
  const update = [setRemove, adds.length > 0 ? `ADD ${adds.join(', ')}` : ''].filter((part) => part !== '').join(' ');
  return {
    Update: {
      ...common,
      Key: key,
      UpdateExpression: update,
      ...(condition ? { ConditionExpression: condition } : {}),
      ...x.attributes(),
    },
  };
}

/** Idempotency token of one step of one claim: hash(identity, fence, label), 36 chars as DynamoDB allows. */
function transactionToken(claim: Claim, label: string): string {
  const { tenantId, operationId } = claim.identity;
  return sha256Hex(`leasefence-tx\u0000${tenantId}\u0000${operationId}\u0000${claim.fence}\u0000${label}`).slice(0, 36);
}

/** Records step `name` done under my fence, only if no holder recorded it yet (so a re-sent step lands once). */
function stepOnceTransition(claim: Claim, name: string, result: unknown, now: number): HolderTransition {
  return {
    ...stepTransition(name, result ?? null, claim, now),
    condition: (x) => `attribute_not_exists(${x.name('steps')}.${x.name(name)})`,
  };
}

/** Builds the transaction of a step: the work-item update (fence = mine AND claimed AND step not done) first. */
function buildStepTransaction(
  claim: Claim,
  step: { name: string; result: unknown },
  writes: readonly SharedWrite[],
  now: number,
): TransactionPlan {
  const transition = stepOnceTransition(claim, step.name, step.result, now);
  return plan(transition, writes, transactionToken(claim, `step:${step.name}`));
}

/** Builds the transaction whose work-item update IS the completion (claimed ▶ succeeded under my fence). */
function buildCompletionTransaction(
  claim: Claim,
  outcome: JobOutcome,
  writes: readonly SharedWrite[],
  now: number,
): TransactionPlan {
  return plan(completeTransition(outcome, now), writes, transactionToken(claim, 'complete'));
}

function plan(transition: HolderTransition, writes: readonly SharedWrite[], token: string): TransactionPlan {
  return { transition, items: writes.map(sharedWriteItem), token, writes };
}

export {
  buildCompletionTransaction,
  buildStepTransaction,
  MAX_SHARED_WRITES,
  parseSharedWrites,
  type SharedWrite,
  type TransactionPlan,
  transactionToken,
  type WorkItemLocation,
};
