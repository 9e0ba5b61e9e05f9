import { mapBounded } from '../../internal/bounded-parallel.js';
import {
  countMatching,
  type Key,
  type PartialCount,
  type QueryPage,
  queryPage,
  type ReadCost,
  type StoreConnection,
  sumCounts,
} from '../driver/connection.js';
import { sendQuery } from '../driver/plain-requests.js';
import { PARKED_SHARD_READS_IN_FLIGHT, type ParkedIndex, parkedShards } from './parked-keys.js';
import { buildOldestParkedQuery, buildParkedPageQuery, buildParkedShardQuery } from './parked-requests.js';

/** The oldest parked time of a state (absent: nothing parked) and what reading it cost. */
interface OldestParked {
  at?: number;
  cost: ReadCost;
}

/**
 * The parked indexes (unknown, quarantined, failed_terminal; across tenants or per tenant), each state
 * write-sharded over TENANT_BUCKETS keys: every read here covers all of a state's shards, at most
 * PARKED_SHARD_READS_IN_FLIGHT at once.
 */
class ParkedReads {
  constructor(private readonly db: StoreConnection) {}

  /** The oldest parkedAt of `state` (per tenant when given): the minimum of each shard's first entry. */
  async oldest(state: string, tenantId?: string): Promise<OldestParked> {
    const { index, keys } = parkedShards(state, tenantId);
    const firsts = await mapBounded(keys, PARKED_SHARD_READS_IN_FLIGHT, (key) =>
      sendQuery(this.db.client, buildOldestParkedQuery(this.db.table.tableName, index, key)),
    );
    const cost: ReadCost = { requests: 0, items: 0, capacityUnits: 0 };
    for (const first of firsts) {
      cost.requests += 1;
      cost.items += first.Count ?? first.Items?.length ?? 0;
      cost.capacityUnits += first.ConsumedCapacity?.CapacityUnits ?? 0;
    }
    const times = firsts.map((first) => first.Items?.[0]?.[index.sort]).filter((at) => typeof at === 'number');
    return { ...(times.length > 0 ? { at: Math.min(...times) } : {}), cost };
  }

  /** Entries parked in `state` (per tenant when given), summed over every shard; complete only if each shard's is. */
  async count(state: string, tenantId?: string): Promise<PartialCount> {
    const { index, keys } = parkedShards(state, tenantId);
    const counts = await mapBounded(keys, PARKED_SHARD_READS_IN_FLIGHT, (key) =>
      countMatching(this.db.client, buildParkedShardQuery(this.db.table.tableName, index, key)),
    );
    return sumCounts(counts);
  }

  /** One page of one shard (`shardKey` of `index`, from parkedShards), oldest first, from `startKey` on. */
  page(index: ParkedIndex, shardKey: string, limit: number, startKey?: Key): Promise<QueryPage> {
    return queryPage(this.db.client, buildParkedPageQuery(this.db.table.tableName, index, shardKey, limit, startKey));
  }
}

export { type OldestParked, ParkedReads };
