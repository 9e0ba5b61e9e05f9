import type { LimitScope } from '../../flow-control/concurrency-limits.js';
import type { StoreConnection } from '../driver/connection.js';
import { sendQuery } from '../driver/plain-requests.js';
import { buildPartitionQuery, SlotKeyPrefix, slotPartition } from './slot-requests.js';

/*
 * Reads of a limit's partition, apart from the slot store's writes: the admin function reads usage without bundling
 * the slot store (its bundle defines flow control out, functions.ts flowControlDefine).
 */

/**
 * What one limit looks like now: slots held under a live lease, held past their lease, jobs waiting (waiter records:
 * one whose job ended otherwise stays counted until the next release of the limit removes it), and the limit's size
 * as the latest slot taken recorded it (absent while no slot is held).
 */
interface LimitUsage {
  readonly partition: string;
  readonly limit?: number;
  readonly inUse: number;
  readonly expired: number;
  readonly waiting: number;
  readonly oldestWaitingSince?: number;
}

/**
 * Every item of a partition under `prefix` (a limit's slots or waiters, a budget's waiters), strongly consistent
 * Query pages.
 */
async function partitionItems(db: StoreConnection, partition: string, prefix: string) {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const output = await sendQuery(db.client, {
      ...buildPartitionQuery(db.table.tableName, partition, prefix),
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    items.push(...(output.Items ?? []));
    start = output.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Slots in use (live and past their lease) and jobs waiting for one limit of a job type, read now; never a Scan. */
function limitUsage(db: StoreConnection, jobType: string, scope: LimitScope): Promise<LimitUsage> {
  return usageOf(db, slotPartition(jobType, scope));
}

/** The usage of the limit whose partition is `partition` (limitUsage). */
async function usageOf(db: StoreConnection, partition: string): Promise<LimitUsage> {
  const now = db.clock.now();
  const slots = await partitionItems(db, partition, SlotKeyPrefix.slot);
  const waiters = await partitionItems(db, partition, SlotKeyPrefix.wait);
  const inUse = slots.filter((slot) => Number(slot.leaseExpiresAt) >= now).length;
  const oldest = waiters[0]?.waitingSince;
  const latest = slots.reduce<Record<string, unknown> | undefined>(
    (found, slot) => (found === undefined || Number(slot.acquiredAt) > Number(found.acquiredAt) ? slot : found),
    undefined,
  );
  return {
    partition,
    ...(typeof latest?.limit === 'number' ? { limit: latest.limit } : {}),
    inUse,
    expired: slots.length - inUse,
    waiting: waiters.length,
    ...(typeof oldest === 'number' ? { oldestWaitingSince: oldest } : {}),
  };
}

export { type LimitUsage, limitUsage, partitionItems, usageOf };
