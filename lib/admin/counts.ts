import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { tenantIdSchema } from '../identity.js';
import { mapBounded } from '../internal/bounded-parallel.js';
import { parseInput } from '../internal/validation.js';
import { PARKED_STATES, WorkState as State, WORK_STATES, type WorkState } from '../states.js';
import { PARKED_SHARD_READS_IN_FLIGHT, parkedShards } from '../store/parked-keys.js';
import { deadlineShardName, JobsIndex, KeyPrefix, TableKeys, tenantPartitionKeys } from '../store/table.js';
import { type AdminDeps, adminClock } from './deps.js';

/** Pages read per count at most (1 MB each): past that a count is a lower bound, marked incomplete. */
const MAX_COUNT_PAGES = 10;

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

/** Sums `Count` over pages of one Query (Select COUNT), stopping after MAX_COUNT_PAGES. */
async function countQuery(deps: AdminDeps, input: QueryCommandInput): Promise<{ count: number; complete: boolean }> {
  let count = 0;
  let key: Record<string, unknown> | undefined;
  for (let page = 0; page < MAX_COUNT_PAGES; page += 1) {
    const output = await deps.store.client.send(
      new QueryCommand({ ...input, Select: 'COUNT', ...(key ? { ExclusiveStartKey: key } : {}) }),
    );
    count += output.Count ?? 0;
    key = output.LastEvaluatedKey;
    if (!key) return { count, complete: true };
  }
  return { count, complete: false };
}

/** A Query on one partition of an index, by equality on its partition attribute. */
function indexQuery(deps: AdminDeps, index: { name: string; partition: string }, value: string): QueryCommandInput {
  return {
    TableName: deps.store.table.tableName,
    IndexName: index.name,
    KeyConditionExpression: '#p = :p',
    ExpressionAttributeNames: { '#p': index.partition },
    ExpressionAttributeValues: { ':p': value },
  };
}

/**
 * A parked state: COUNT summed over every shard of the parked index (per tenant when one is given), complete only
 * if every shard's count is; the oldest parkedAt is the minimum of each shard's first item.
 */
async function parkedCount(deps: AdminDeps, state: WorkState, tenantId?: string): Promise<StateCount> {
  const { index, keys } = parkedShards(state, tenantId);
  const shards = await mapBounded(keys, PARKED_SHARD_READS_IN_FLIGHT, async (key) => {
    const query = indexQuery(deps, index, key);
    const [counted, oldest] = await Promise.all([
      countQuery(deps, query),
      deps.store.client.send(new QueryCommand({ ...query, Limit: 1, ScanIndexForward: true })),
    ]);
    return { ...counted, oldestAt: oldest.Items?.[0]?.[index.sort] as unknown };
  });
  const times = shards.map((shard) => shard.oldestAt).filter((at) => typeof at === 'number');
  return {
    state,
    available: true,
    count: shards.reduce((sum, shard) => sum + shard.count, 0),
    complete: shards.every((shard) => shard.complete),
    ...(times.length > 0 ? { oldestAt: Math.min(...times) } : {}),
  };
}

/** claimed or queued across tenants: a filtered COUNT Query on every deadline shard (never a Scan). */
async function activeCount(deps: AdminDeps, state: WorkState): Promise<StateCount> {
  const shards = Array.from({ length: deps.store.table.deadlineShards }, (_, index) => deadlineShardName(index));
  const counts = await Promise.all(
    shards.map((shard) =>
      countQuery(deps, {
        ...indexQuery(deps, JobsIndex.byDeadline, shard),
        FilterExpression: '#state = :state',
        ExpressionAttributeNames: { '#p': JobsIndex.byDeadline.partition, '#state': 'state' },
        ExpressionAttributeValues: { ':p': shard, ':state': state },
      }),
    ),
  );
  return {
    state,
    available: true,
    count: counts.reduce((sum, part) => sum + part.count, 0),
    complete: counts.every((part) => part.complete),
  };
}

/** Every state of one tenant in one pass over its partition keys, reading only `state`. */
async function tenantTally(
  deps: AdminDeps,
  tenantId: string,
): Promise<{ counts: Map<string, number>; complete: boolean }> {
  const counts = new Map<string, number>();
  let complete = true;
  for (const partition of tenantPartitionKeys(tenantId)) {
    let key: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const output = await deps.store.client.send(
        new QueryCommand({
          TableName: deps.store.table.tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ProjectionExpression: '#state',
          ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort, '#state': 'state' },
          ExpressionAttributeValues: { ':pk': partition, ':prefix': KeyPrefix.workItem },
          ...(key ? { ExclusiveStartKey: key } : {}),
        }),
      );
      for (const item of output.Items ?? []) counts.set(String(item.state), (counts.get(String(item.state)) ?? 0) + 1);
      key = output.LastEvaluatedKey;
      pages += 1;
    } while (key && pages < MAX_COUNT_PAGES);
    if (key) complete = false;
  }
  return { counts, complete };
}

/** Approximate DLQ depth (visible and in flight); not available without a DLQ or the permission to read it. */
async function deadLetterDepth(deps: AdminDeps): Promise<QueueDepth> {
  if (!deps.deadLetterQueueUrl) return { available: false, reason: 'no dead-letter queue configured' };
  try {
    const output = await deps.sqs.send(
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

const countsSchema = z.strictObject({ tenantId: tenantIdSchema.optional() });

/** Why a state has no count across tenants. */
const NEEDS_SCAN = 'counting this state across tenants would need a Scan: pick a tenant';

/**
 * Counts items per state without a Scan: parked states from the sparse parked indexes (with the oldest parked
 * time), claimed and queued from the deadline index; succeeded and cancelled only for one tenant (a Query on its
 * partition keys), else marked not available. Counts past MAX_COUNT_PAGES pages are lower bounds (`complete: false`).
 * Bad tenant ▶ InvalidInputError.
 * @example
 * const { states, deadLetters } = await countItems(deps, { tenantId: 'acme' });
 */
async function countItems(deps: AdminDeps, input: { tenantId?: string } = {}): Promise<CountsReport> {
  const { tenantId } = parseInput(countsSchema, input, 'counts');
  const at = adminClock(deps).now();
  const parked = await Promise.all(PARKED_STATES.map((state) => parkedCount(deps, state, tenantId)));
  const tally = tenantId === undefined ? undefined : await tenantTally(deps, tenantId);
  const others = await Promise.all(
    WORK_STATES.filter((state) => !(PARKED_STATES as readonly string[]).includes(state)).map(
      async (state): Promise<StateCount> => {
        if (tally) return { state, available: true, count: tally.counts.get(state) ?? 0, complete: tally.complete };
        if (state === State.claimed || state === State.queued) return activeCount(deps, state);
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

export { type CountsReport, countItems, deadLetterDepth, MAX_COUNT_PAGES, type QueueDepth, type StateCount };
