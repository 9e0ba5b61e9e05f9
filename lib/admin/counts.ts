import * as z from 'zod/mini';
import { tenantIdSchema } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { resolveSqsClient } from '../messaging/wake.js';
import { PARKED_STATES, WorkState as State, WORK_STATES, type WorkState } from '../states.js';
import { type AdminDeps, adminClock } from './deps.js';

/** One state's count: exact (complete), a lower bound (not complete), or not available without a Scan. */
type StateCount =
  | { state: WorkState; available: true; count: number; complete: boolean; oldestAt?: number }
  | { state: WorkState; available: false; reason: string };

/** Depth of the dead-letter queue, when the target has one and lets us read it. */
type QueueDepth = { available: true; depth: number; inFlight: number } | { available: false; reason: string };

/** Counts per state (all tenants, or one), the oldest parked time per parked state, and the DLQ depth. */
interface CountsReport {
  at: number;
  tenantId?: string;
  states: StateCount[];
  deadLetters: QueueDepth;
}

/**
 * A parked state: COUNT summed over every shard of the parked index (per tenant when one is given), complete only
 * if every shard's count is; the oldest parkedAt is the minimum of each shard's first item.
 */
async function parkedCount(deps: AdminDeps, state: WorkState, tenantId?: string): Promise<StateCount> {
  const [counted, oldest] = await Promise.all([
    deps.store.parked.count(state, tenantId),
    deps.store.parked.oldest(state, tenantId),
  ]);
  return { state, available: true, ...counted, ...(oldest.at !== undefined ? { oldestAt: oldest.at } : {}) };
}

/** Approximate DLQ depth (visible and in flight); not available without a DLQ or the permission to read it. */
async function deadLetterDepth(deps: AdminDeps): Promise<QueueDepth> {
  if (!deps.deadLetterQueueUrl) return { available: false, reason: 'no dead-letter queue configured' };
  try {
    // The SDK loads here, on the first count, not at the admin function's cold start.
    const [client, { GetQueueAttributesCommand }] = await Promise.all([
      resolveSqsClient(deps.sqs),
      import('@aws-sdk/client-sqs'),
    ]);
    const output = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: deps.deadLetterQueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return {
      available: true,
      depth: Number(output.Attributes?.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(output.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
    };
  } catch (error) {
    return { available: false, reason: `the queue could not be read (${(error as Error).name})` };
  }
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const countsSchema = z.lazy(() => z.strictObject({ tenantId: z.optional(tenantIdSchema) }));

/** Why a state has no count across tenants. */
const NEEDS_SCAN = 'counting this state across tenants would need a Scan: pick a tenant';

/**
 * Counts items per state without a Scan: parked states from the sparse parked indexes (with the oldest parked
 * time), claimed and queued from the deadline index; succeeded and cancelled only for one tenant (a Query on its
 * partition keys), else marked not available. Counts past the store's page bound are lower bounds (`complete: false`).
 * Bad tenant ▶ InvalidInputError.
 * @example
 * const { states, deadLetters } = await countItems(deps, { tenantId: 'acme' });
 */
async function countItems(deps: AdminDeps, input: { tenantId?: string } = {}): Promise<CountsReport> {
  const { tenantId } = parseInput(countsSchema, input, 'counts');
  const at = adminClock(deps).now();
  const parked = await Promise.all(PARKED_STATES.map((state) => parkedCount(deps, state, tenantId)));
  const tally = tenantId === undefined ? undefined : await deps.store.tenants.tally(tenantId);
  const others = await Promise.all(
    WORK_STATES.filter((state) => !(PARKED_STATES as readonly string[]).includes(state)).map(
      async (state): Promise<StateCount> => {
        if (tally) return { state, available: true, count: tally.counts.get(state) ?? 0, complete: tally.complete };
        if (state === State.claimed || state === State.queued) {
          return { state, available: true, ...(await deps.store.deadlines.count(state)) };
        }
        return { state, available: false, reason: NEEDS_SCAN };
      },
    ),
  );
  const byState = new Map([...parked, ...others].map((entry) => [entry.state, entry]));
  return {
    at,
    ...(tenantId !== undefined ? { tenantId } : {}),
    states: WORK_STATES.map((state) => byState.get(state) as StateCount),
    deadLetters: await deadLetterDepth(deps),
  };
}

export { type CountsReport, countItems, deadLetterDepth, type QueueDepth, type StateCount };
