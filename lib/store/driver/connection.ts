import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../clock.js';
import { deadlineShardName } from '../table.js';
import type { TableContext } from '../work-items/requests.js';
import { sendQuery, type TableClient } from './plain-requests.js';

/**
 * How store code reaches the jobs table: the client, where the table is, and the clock every write stamps.
 * WorkItemStore holds it privately and hands it only to the store's own readers, so nothing outside lib/store/
 * talks to the table.
 */
interface StoreConnection {
  readonly client: TableClient;
  readonly table: TableContext;
  readonly clock: Clock;
}

/** A DynamoDB key as a paginated read carries it between Queries (strings and numbers in our tables). */
type Key = Record<string, unknown>;

/** Rows of one Query and where it stopped (absent: the partition or shard is read to its end). */
interface QueryPage {
  items: Record<string, unknown>[];
  next?: Key;
}

/** What reads cost: Queries sent, items returned, read capacity consumed (when the engine reports it). */
interface ReadCost {
  requests: number;
  items: number;
  capacityUnits: number;
}

/** A count: exact when `complete`, else a lower bound (a read stopped at its page bound). */
interface PartialCount {
  count: number;
  complete: boolean;
}

/** Pages read per count at most (1 MB each): past that a count is a lower bound, marked incomplete. */
const MAX_COUNT_PAGES = 10;

/** Every shard of the deadline index (`deadline#0` …): the one list each reader of the whole index walks. */
function deadlineShardNames(table: TableContext): string[] {
  return Array.from({ length: table.deadlineShards }, (_, index) => deadlineShardName(index));
}

/** Sends one Query and returns its rows and where it stopped. */
async function queryPage(client: TableClient, input: QueryCommandInput): Promise<QueryPage> {
  const output = await sendQuery(client, input);
  return { items: output.Items ?? [], ...(output.LastEvaluatedKey ? { next: output.LastEvaluatedKey } : {}) };
}

/** Sums `Count` over the pages of one Query (Select COUNT), stopping after `maxPages` (then not complete). */
async function countMatching(
  client: TableClient,
  input: QueryCommandInput,
  maxPages = MAX_COUNT_PAGES,
): Promise<PartialCount> {
  let count = 0;
  let key: Key | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const output = await sendQuery(client, { ...input, Select: 'COUNT', ...(key ? { ExclusiveStartKey: key } : {}) });
    count += output.Count ?? 0;
    key = output.LastEvaluatedKey;
    if (!key) return { count, complete: true };
  }
  return { count, complete: false };
}

/** The sum of several partial counts: complete only if every part is. */
function sumCounts(parts: readonly PartialCount[]): PartialCount {
  return {
    count: parts.reduce((sum, part) => sum + part.count, 0),
    complete: parts.every((part) => part.complete),
  };
}

export {
  countMatching,
  deadlineShardNames,
  type Key,
  MAX_COUNT_PAGES,
  type PartialCount,
  type QueryPage,
  queryPage,
  type ReadCost,
  type StoreConnection,
  sumCounts,
};
