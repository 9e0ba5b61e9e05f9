import * as z from 'zod';
import { payloadHash } from '../../lib/hashing.js';
import { missingControl, type TargetClass } from '../../lib/job-definition.js';
import { buildClaimRequest, buildCreateRequest } from '../../lib/store/requests.js';
import { workItemKey } from '../../lib/table.js';
import { idempotencyKeyFor } from '../../lib/worker/job-context.js';

/** One go/no-go control for one job type: PASS or FAIL, and the evidence behind it. */
interface ControlResult {
  id: number;
  control: string;
  status: 'PASS' | 'FAIL';
  evidence: string;
  /** Test files that prove the library side of the control (relative to the repository root). */
  tests: string[];
}

/** What `check` can see of a job type; hand-built definitions may lack anything, so everything is optional. */
type DefinitionLike = Record<string, unknown> & { type?: unknown };

/** The honest claim of each target class (README, "What is guaranteed"). */
const CLASS_CLAIMS: Record<TargetClass, string> = {
  A: 'shared DynamoDB record, fenced transaction: a superseded worker commits nothing; each step lands once',
  B: 'record owned by the operation, writer_epoch: an older claim never overwrites a newer one',
  C: 'external API with idempotency key + lookup: deduplication as the provider defines it, not fencing',
  D: 'external system without key or lookup: at most one attempt; ambiguous results park as unknown',
};

const SAMPLE = { tenantId: 'tenant-a', operationId: 'op-1' };
const TABLE = { tableName: 'jobs', deadlineShards: 8 };

/** An expression with its `#name` placeholders replaced by the attribute names. */
function withNames(expression: string | undefined, names: Record<string, string> | undefined): string {
  return (expression ?? '').replace(/#[A-Za-z0-9_]+/g, (placeholder) => names?.[placeholder] ?? placeholder);
}

/** Live checks of the library, run now against its pure request builders (no engine needed). */
function libraryFacts() {
  const other = { ...SAMPLE, tenantId: 'tenant-b' };
  const claim = buildClaimRequest(TABLE, SAMPLE, { owner: 'w', claimId: 'c', leaseMs: 1000 }, 0);
  const create = buildCreateRequest(
    TABLE,
    { identity: SAMPLE, jobType: 't', payloadHash: payloadHash({ secret: 'x' }), payloadInline: true, maxAttempts: 3 },
    0,
  );
  return {
    keysApart: workItemKey(SAMPLE).pk !== workItemKey(other).pk,
    idempotencyApart: idempotencyKeyFor(SAMPLE) !== idempotencyKeyFor(other),
    claimConditional: /attempts < maxAttempts.*leaseExpiresAt </.test(
      withNames(claim.ConditionExpression, claim.ExpressionAttributeNames),
    ),
    claimUpdatesFence: /fence = fence \+/.test(withNames(claim.UpdateExpression, claim.ExpressionAttributeNames)),
    rowHoldsNoBody: !JSON.stringify(create.Item).includes('secret') && !('payload' in create.Item),
  };
}

/** The seed's nine all-required controls for one job type; library properties are checked live where possible. */
function checkControls(definition: DefinitionLike): ControlResult[] {
  const facts = libraryFacts();
  const type = typeof definition.type === 'string' ? definition.type : '(unnamed)';
  const target =
    typeof definition.target === 'string' && definition.target in CLASS_CLAIMS
      ? (definition.target as TargetClass)
      : undefined;
  const maxAttempts = definition.maxAttempts;
  const attemptsBounded =
    typeof maxAttempts === 'number' && Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= 100;
  const missing =
    target && attemptsBounded
      ? missingControl({ type, target, maxAttempts, reconcile: definition.reconcile, run: definition.run })
      : undefined;
  const result = (id: number, control: string, pass: boolean, evidence: string, tests: string[]): ControlResult => ({
    id,
    control,
    status: pass ? 'PASS' : 'FAIL',
    evidence,
    tests,
  });
  return [
    result(
      1,
      'Operation identity is durable and tenant-scoped',
      facts.keysApart && facts.idempotencyApart,
      'key pk=<tenantId>, sk=op#<operationId>; the same operation id under two tenants gets two keys and two idempotency keys (checked now)',
      ['test/integration/store/tenants.test.ts', 'test/unit/identity.test.ts', 'test/unit/table.test.ts'],
    ),
    result(
      2,
      'Identity is bound to an immutable payload hash; a changed payload is rejected',
      definition.payload instanceof z.ZodType,
      definition.payload instanceof z.ZodType
        ? 'payload has a schema; SHA-256 of RFC 8785 JSON bound at enqueue, re-verified by the worker; a different hash is a conflict'
        : 'payload is not a zod schema: the worker cannot validate what it runs',
      ['test/integration/store/replay.test.ts', 'test/unit/hashing.test.ts'],
    ),
    result(
      3,
      'Claim is atomic across concurrent workers',
      facts.claimConditional && facts.claimUpdatesFence,
      'the claim is one conditional UpdateItem raising fence and attempts (request built now)',
      ['test/reliability/claim-concurrency.test.ts', 'test/unit/store/requests.test.ts'],
    ),
    result(
      4,
      'Every state change is a conditional mutation on the fence',
      true,
      'work-item transitions carry fence = mine AND state = claimed; job records go through ctx.records / ctx.transactions (code review: no other write path to protected records)',
      [
        'test/integration/store/ownership.test.ts',
        'test/integration/store/lost-response.test.ts',
        'test/unit/fenced-records-requests.test.ts',
        'test/unit/fenced-transaction.test.ts',
      ],
    ),
    result(
      5,
      'The target enforces the fence, or the job is class C/D with its stated limits',
      target !== undefined,
      target
        ? `target class ${target} recorded: ${CLASS_CLAIMS[target]}`
        : 'no target class (A, B, C or D) is declared',
      [
        'test/integration/fenced/shared-inventory.test.ts',
        'test/integration/fenced/statement-publication.test.ts',
        'test/integration/fenced/refund-settlement.test.ts',
      ],
    ),
    result(
      6,
      'Ambiguous outcomes go to reconciliation or unknown, never blind retry or success',
      target !== undefined && attemptsBounded && missing === undefined,
      missing ??
        (target === 'C'
          ? 'reconcile() runs before every retry'
          : target === 'D'
            ? 'one attempt; ambiguous ▶ unknown'
            : target
              ? 'retries are fenced; exhausted or ambiguous ▶ unknown'
              : 'no target class declared'),
      ['test/integration/worker/crash-recovery.test.ts', 'test/unit/job-definition.test.ts'],
    ),
    result(
      7,
      'Terminal failure and quarantine exist, with bounded attempts and an owner',
      attemptsBounded,
      attemptsBounded
        ? `maxAttempts ${String(maxAttempts)}; failed_terminal, unknown and quarantined are parked and listed; alarms route to the deployment's alarm topic`
        : `maxAttempts ${String(maxAttempts)} is not an integer from 1 to 100`,
      [
        'test/integration/worker/poison.test.ts',
        'test/integration/store/quarantine.test.ts',
        'test/infra/resources.test.ts',
      ],
    ),
    result(
      8,
      'Acknowledgment happens only after the work record commits',
      true,
      'a message is deleted only after its row committed; a failed commit leaves it for redelivery',
      ['test/integration/worker/full-path.test.ts'],
    ),
    result(
      9,
      'Payloads are minimised, retained and erasable',
      facts.rowHoldsNoBody,
      'the work row holds the hash, not the body (request built now); bodies live in the payloads table with a TTL and are erasable per tenant; logs carry hashed ids',
      ['test/unit/store/requests.test.ts', 'test/integration/admin/dlq-and-erase.test.ts'],
    ),
  ];
}

export { CLASS_CLAIMS, type ControlResult, checkControls, type DefinitionLike };
