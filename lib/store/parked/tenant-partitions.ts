import { type Key, MAX_COUNT_PAGES, type QueryPage, queryPage, type StoreConnection } from '../driver/connection.js';
import { sendQuery } from '../driver/plain-requests.js';
import { tenantPartitionKeys } from '../table.js';
import { buildTenantPageQuery, buildTenantStatesQuery } from './tenant-requests.js';

/** How many of a tenant's work items are in each state; a lower bound when not `complete`. */
interface TenantTally {
  counts: Map<string, number>;
  complete: boolean;
}

/**
 * One tenant's work items through its TENANT_BUCKETS partition keys (tenantPartitionKeys): a Query per key,
 * never a Scan, any state (succeeded and cancelled too).
 */
class TenantPartitions {
  constructor(private readonly db: StoreConnection) {}

  /** Every state of one tenant in one pass over its partition keys, reading only `state`, MAX_COUNT_PAGES per key. */
  async tally(tenantId: string): Promise<TenantTally> {
    const counts = new Map<string, number>();
    let complete = true;
    for (const partition of tenantPartitionKeys(tenantId)) {
      let key: Key | undefined;
      let pages = 0;
      do {
        const request = buildTenantStatesQuery(this.db.table.tableName, partition, key);
        const output = await sendQuery(this.db.client, request);
        for (const item of output.Items ?? [])
          counts.set(String(item.state), (counts.get(String(item.state)) ?? 0) + 1);
        key = output.LastEvaluatedKey;
        pages += 1;
      } while (key && pages < MAX_COUNT_PAGES);
      if (key) complete = false;
    }
    return { counts, complete };
  }

  /** One page of one partition key's work items (`state` a filter), evaluating at most `limit` rows. */
  page(partitionKey: string, options: { state?: string; limit: number; startKey?: Key }): Promise<QueryPage> {
    return queryPage(this.db.client, buildTenantPageQuery(this.db.table.tableName, partitionKey, options));
  }
}

export { TenantPartitions, type TenantTally };
