import { randomUUID } from 'node:crypto';
import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { sha256Hex } from '../hashing.js';
import { parseInput } from '../internal/validation.js';
import { isWriterAttribute, tableNameSchema } from '../rules.js';
import type { Claim } from '../store/index.js';
import { ExpressionBuilder, isPlainRecord } from '../store/index.js';
import {
  attributeMapSchema,
  attributePathSchema,
  type BusinessCondition,
  businessConditionSchema,
  renderBusinessCondition,
} from './conditions.js';
import { type FenceRule, renderFenceCondition, writerAttributes, writerOperation } from './fence-rules.js';
import { checkSimpleRecordWrite, MAX_SET_ATTRIBUTES, MAX_WRITE_ID_CHARS } from './record-write-check.js';

/** Where a protected record lives: its table and its full primary key. */
interface RecordRef {
  readonly tableName: string;
  readonly key: Readonly<Record<string, unknown>>;
}

/** A change to a protected record: attributes to set and remove, the caller's condition, an optional write id. */
interface RecordChange {
  readonly set?: Readonly<Record<string, unknown>>;
  readonly remove?: readonly string[];
  /** The caller's business condition, combined (AND) with the fence condition. */
  readonly where?: BusinessCondition;
  /**
   * Names one logical write of this claim. A repeated call with the same id (the caller retrying after an
   * unclear error) is recognised as applied. Without it, only the SDK's own retries are recognised.
   */
  readonly writeId?: string;
}

/** What one fenced write does: update attributes in place, or replace the whole item. */
type RecordWrite =
  | { readonly kind: 'update'; readonly ref: RecordRef; readonly change: RecordChange }
  | {
      readonly kind: 'put';
      readonly ref: RecordRef;
      readonly item: Readonly<Record<string, unknown>>;
      readonly where?: BusinessCondition;
      readonly writeId?: string;
    };

/** A built request ready for sendConditional, with what classification needs afterwards. */
interface FencedRecordRequest {
  readonly request:
    | ({ kind: 'put'; readKey: Record<string, unknown> } & PutCommandInput)
    | ({ kind: 'update' } & UpdateCommandInput);
  readonly token: string;
  readonly operation: string;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// whose first events never reach them does not pay for building them (BENCHMARKS.md figure 5).
// A plain object, copied (a batch builds its writes later; the caller's object may have changed by then). Its
// names are checked by checkWriteTargets in one pass: a record schema walking each name through a string
// schema was the costliest part of validating a write.
const attributesSchema = z.lazy(() =>
  z.pipe(
    z.custom<Record<string, unknown>>(
      (value) => typeof value === 'object' && value !== null && isPlainRecord(value),
      'must be a plain object of attributes',
    ),
    z.transform((attributes) => ({ ...attributes })),
  ),
);
const refSchema = z.lazy(() => z.strictObject({ tableName: tableNameSchema, key: attributesSchema }));
const writeIdSchema = z.lazy(() => z.string().check(z.minLength(1), z.maxLength(MAX_WRITE_ID_CHARS)));
const changeSchema = z.lazy(() =>
  z
    .strictObject({
      set: z.optional(attributeMapSchema(z.unknown())),
      remove: z.optional(z.array(attributePathSchema).check(z.maxLength(50))),
      where: z.optional(businessConditionSchema),
      writeId: z.optional(writeIdSchema),
    })
    .check(
      z.refine(
        (change) => change.set === undefined || Object.keys(change.set).length <= MAX_SET_ATTRIBUTES,
        `at most ${MAX_SET_ATTRIBUTES} attributes`,
      ),
    ),
);
/** The attribute names of a key or item, reported at `path` when one is empty. */
function checkAttributeNames(value: object, path: string[], context: z.core.$RefinementCtx): string[] {
  const names = Object.keys(value);
  if (names.includes('')) context.addIssue({ code: 'custom', path, message: 'attribute names must not be empty' });
  return names;
}

/** Keys have 1 or 2 attributes that cannot be changed, and the fence's writer attributes belong to the fence. */
function checkWriteTargets(
  write: z.infer<typeof updateWriteSchema> | z.infer<typeof putWriteSchema>,
  context: z.core.$RefinementCtx,
): void {
  const keyNames = checkAttributeNames(write.ref.key, ['ref', 'key'], context);
  if (keyNames.length < 1 || keyNames.length > 2) {
    context.addIssue({ code: 'custom', path: ['ref', 'key'], message: 'key must have 1 or 2 attributes' });
  }
  const touched =
    write.kind === 'update' ? [...Object.keys(write.change.set ?? {}), ...(write.change.remove ?? [])] : [];
  for (const path of touched.filter((candidate) => keyNames.includes(candidate.split('.')[0] ?? ''))) {
    context.addIssue({ code: 'custom', path: ['change'], message: `key attribute ${path} cannot be changed` });
  }
  const named = write.kind === 'put' ? checkAttributeNames(write.item, ['item'], context) : [];
  for (const name of named.filter(isWriterAttribute)) {
    context.addIssue({ code: 'custom', path: ['item', name], message: `${name} belongs to the fence` });
  }
}
const updateWriteSchema = z.lazy(() =>
  z.strictObject({ kind: z.literal('update'), ref: refSchema, change: changeSchema }),
);
const putWriteSchema = z.lazy(() =>
  z.strictObject({
    kind: z.literal('put'),
    ref: refSchema,
    item: attributesSchema,
    where: z.optional(businessConditionSchema),
    writeId: z.optional(writeIdSchema),
  }),
);
// One schema per kind, picked by the caller's method: cheaper than a discriminated union on every write.
const checkedUpdateSchema = z.lazy(() => updateWriteSchema.check(z.superRefine(checkWriteTargets)));
const checkedPutSchema = z.lazy(() => putWriteSchema.check(z.superRefine(checkWriteTargets)));
const ruleSchema = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('advance') }),
    z.strictObject({
      kind: z.literal('sequence'),
      seq: z.number().check(z.int(), z.gte(1), z.lte(Number.MAX_SAFE_INTEGER)),
    }),
    z.strictObject({ kind: z.literal('confirm') }),
  ]),
);
/** The rules FencedRecords passes as frozen constants: nothing of the caller's to validate in them. */
const ADVANCE_RULE: FenceRule = Object.freeze({ kind: 'advance' });
const CONFIRM_RULE: FenceRule = Object.freeze({ kind: 'confirm' });

/** The full schema of a write of this kind (one per kind, picked by the caller's method). */
function recordWriteSchemaFor(write: unknown) {
  return (write as { kind?: unknown } | null)?.kind === 'put' ? checkedPutSchema : checkedUpdateSchema;
}

/**
 * Validates a write and its rule; InvalidInputError names each bad field and nothing is sent. The common plain
 * shapes are checked in one pass (record-write-check.ts, exactly as strict); everything else by the schema.
 */
function parseRecordWrite(write: unknown, rule: unknown): { write: RecordWrite; rule: FenceRule } {
  return {
    write:
      checkSimpleRecordWrite(write) ??
      (parseInput(recordWriteSchemaFor(write), write, 'fenced record write') as RecordWrite),
    rule:
      rule === ADVANCE_RULE || rule === CONFIRM_RULE
        ? (rule as FenceRule)
        : (parseInput(ruleSchema, rule, 'fence rule') as FenceRule),
  };
}

/** A stable identity for one item: table plus key, independent of the key's attribute order. */
function recordIdentity(tableName: string, key: Readonly<Record<string, unknown>>): string {
  return `${tableName}\u0000${JSON.stringify(Object.entries(key).sort(([a], [b]) => a.localeCompare(b)))}`;
}

/** The token stored with the write: derived from the write id when given, else unique per call. */
function writeToken(claim: Claim, ref: RecordRef, writeId: string | undefined): string {
  if (writeId === undefined) return randomUUID();
  const record = recordIdentity(ref.tableName, ref.key);
  return sha256Hex(`${claim.claimId}\u0000${claim.fence}\u0000${record}\u0000${writeId}`).slice(0, 32);
}

/**
 * THE fenced write for protected records: every class B write is built here and carries the fence
 * condition (per `rule`) ANDed with the caller's business condition, inside the write itself. Pure
 * apart from the random token when no write id is given.
 */
function buildFencedRecordWrite(claim: Claim, write: RecordWrite, rule: FenceRule): FencedRecordRequest {
  const operation = writerOperation(claim.identity);
  const writeId = write.kind === 'update' ? write.change.writeId : write.writeId;
  const token = writeToken(claim, write.ref, writeId);
  const fenceAttributes = writerAttributes(rule, claim.fence, token, operation);
  const x = new ExpressionBuilder();
  const where = write.kind === 'update' ? write.change.where : write.where;
  const fenceCondition = renderFenceCondition(x, rule, claim.fence, operation);
  const business = renderBusinessCondition(x, where);
  const condition = business === undefined ? fenceCondition : `(${fenceCondition}) AND (${business})`;
  if (write.kind === 'put') {
    const request = {
      kind: 'put' as const,
      readKey: { ...write.ref.key },
      TableName: write.ref.tableName,
      Item: { ...write.item, ...write.ref.key, ...fenceAttributes },
      ConditionExpression: condition,
      ...x.attributes(),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    return { request, token, operation };
  }
  const update = x.update({ ...write.change.set, ...fenceAttributes }, write.change.remove ?? []);
  const request = {
    kind: 'update' as const,
    TableName: write.ref.tableName,
    Key: { ...write.ref.key },
    UpdateExpression: update,
    ConditionExpression: condition,
    ...x.attributes(),
    ReturnValues: 'ALL_NEW' as const,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  return { request, token, operation };
}

export {
  ADVANCE_RULE,
  buildFencedRecordWrite,
  CONFIRM_RULE,
  type FencedRecordRequest,
  parseRecordWrite,
  type RecordChange,
  type RecordRef,
  type RecordWrite,
  recordIdentity,
  recordWriteSchemaFor,
  refSchema,
};
