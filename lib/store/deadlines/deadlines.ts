import type { JobIdentity } from '../../identity.js';
import { sendConditional } from '../driver/conditional-write.js';
import {
  countMatching,
  deadlineShardNames,
  type Key,
  type PartialCount,
  type QueryPage,
  queryPage,
  type ReadCost,
  type StoreConnection,
  sumCounts,
} from '../driver/connection.js';
import { sendQuery } from '../driver/plain-requests.js';
import { deadlineShardFor, deadlineShardName } from '../table.js';
import type { WorkItem } from '../work-items/work-item.js';
import {
  type ActiveShardQuery,
  buildActiveShardQuery,
  buildDeadlineAdvance,
  buildDeadlineQuery,
  buildExpiredClaimsQuery,
  buildResignalUpdate,
  buildShardStateQuery,
  resignalLanded,
} from './deadline-requests.js';

/** A re-signal's result: the row as it now stands, or the row that refused it (a lost race). */
type ResignalResult = { ok: true; item: WorkItem } | { ok: false; current: Record<string, unknown> | undefined };

/**
 * The deadline index (claimed items by lease deadline, queued items by due time, write-sharded) and the
 * conditional writes that move an item's deadline. The sweeper reads due pages and moves deadlines; the admin
 * lists and counts active items. Every whole-index read walks deadlineShardNames.
 */
class Deadlines {
  constructor(private readonly db: StoreConnection) {}

  /** Number of write shards of the deadline index, as deployed. */
  get shardCount(): number {
    return this.db.table.deadlineShards;
  }

  /** The deadline shard an identity's row is written to (stable, no tenant data in the key). */
  shardOf(identity: JobIdentity): string {
    return deadlineShardFor(identity, this.db.table.deadlineShards);
  }

  /** One page of shard number `shard`: entries whose deadline is before `now`, oldest first, with its read cost. */
  async duePage(shard: number, now: number, limit: number, startKey?: Key): Promise<QueryPage & { cost: ReadCost }> {
    const request = buildDeadlineQuery(this.db.table.tableName, deadlineShardName(shard), now, limit, startKey);
    const output = await sendQuery(this.db.client, request);
    const items = output.Items ?? [];
    return {
      items,
      ...(output.LastEvaluatedKey ? { next: output.LastEvaluatedKey } : {}),
      cost: {
        requests: 1,
        items: output.Count ?? items.length,
        capacityUnits: output.ConsumedCapacity?.CapacityUnits ?? 0,
      },
    };
  }

  /** One filtered page of shard number `shard` for the active listings (claimed or queued; tenant, age). */
  activePage(shard: number, query: Omit<ActiveShardQuery, 'shard'>): Promise<QueryPage> {
    const request = buildActiveShardQuery(this.db.table.tableName, { ...query, shard: deadlineShardName(shard) });
    return queryPage(this.db.client, request);
  }

  /** Items in `state` (claimed or queued) across every shard; a lower bound past the count's page bound. */
  async count(state: string): Promise<PartialCount> {
    const { client, table } = this.db;
    const counts = await Promise.all(
      deadlineShardNames(table).map((shard) =>
        countMatching(client, buildShardStateQuery(table.tableName, shard, state)),
      ),
    );
    return sumCounts(counts);
  }

  /** Claimed items whose index deadline is before `now` (lease expired, not yet swept), every shard, every page. */
  async countExpiredClaims(now: number): Promise<number> {
    const { client, table } = this.db;
    const counts = await Promise.all(
      deadlineShardNames(table).map((shard) =>
        countMatching(client, buildExpiredClaimsQuery(table.tableName, shard, now), Number.POSITIVE_INFINITY),
      ),
    );
    return sumCounts(counts).count;
  }

  /**
   * Moves the deadline of an item the sweeper observed `nextDeadlineAt` ahead before it sends a wake-up,
   * conditional on the observed state, fence and deadline (see buildResignalUpdate). Our own write seen again
   * after an SDK retry is success; any other refusal returns the row that refused it.
   */
  async resignal(observed: WorkItem, now: number, nextDeadlineAt: number): Promise<ResignalResult> {
    const update = buildResignalUpdate(this.db.table.tableName, observed, now, nextDeadlineAt);
    const result = await sendConditional(this.db.client, { kind: 'update', ...update });
    if (result.ok) return { ok: true, item: (result.attributes ?? observed) as WorkItem };
    if (resignalLanded(result.current, observed, now, nextDeadlineAt)) {
      return { ok: true, item: result.current as unknown as WorkItem };
    }
    return { ok: false, current: result.current };
  }

  /**
   * Moves a live claim's index deadline up to `leaseExpiresAt`, conditional on the observed state, fence and
   * deadline. True when it moved (now or by an earlier try of this write), false when the item changed again.
   */
  async advance(
    observed: Pick<WorkItem, 'tenantId' | 'operationId' | 'fence' | 'deadlineAt'>,
    leaseExpiresAt: number,
  ): Promise<boolean> {
    const update = buildDeadlineAdvance(this.db.table.tableName, observed, leaseExpiresAt);
    const result = await sendConditional(this.db.client, { kind: 'update', ...update });
    return result.ok || result.current?.deadlineAt === leaseExpiresAt;
  }
}

export { Deadlines, type ResignalResult };
