import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, ManualClock } from '../../lib/clock.js';
import { OperatorStore } from '../../lib/store/operator/operator-store.js';
import { parkedStateKeys, parkedTenantStateKeys } from '../../lib/store/parked/parked-keys.js';
import { JobsIndex } from '../../lib/store/table.js';
import { testDocumentClient } from './engine.js';
import { countRequests, type RequestCounter } from './request-counter.js';

/** One store on its own client, with a request counter and (by default) a ManualClock. */
interface StoreFixture {
  client: DynamoDBDocumentClient;
  store: OperatorStore;
  counter: RequestCounter;
  clock: ManualClock;
}

/** A store on a fresh DocumentClient; pass `clock` to share one ManualClock between several stores. */
function storeFixture(tableName: string, options: { clock?: ManualClock; maxAttempts?: number } = {}): StoreFixture {
  const client = testDocumentClient(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {});
  const clock = options.clock ?? new ManualClock();
  const store = new OperatorStore({ client, tableName, clock: clock as Clock });
  return { client, store, counter: countRequests(client), clock };
}

/** Items of one partition key of an index. */
async function queryIndexKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  index: { name: string; partition: string },
  key: string,
): Promise<Record<string, unknown>[]> {
  const output = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: index.name,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': index.partition },
      ExpressionAttributeValues: { ':p': key },
    }),
  );
  return output.Items ?? [];
}

/** Items of the cross-tenant parked index in `state`, every shard (sparse GSI `parkedByState`). */
async function queryParkedByState(
  client: DynamoDBDocumentClient,
  tableName: string,
  state: string,
): Promise<Record<string, unknown>[]> {
  const shards = parkedStateKeys(state).map((key) => queryIndexKey(client, tableName, JobsIndex.parkedByState, key));
  return (await Promise.all(shards)).flat();
}

/** Items of one tenant's parked index in `state`, every shard (sparse GSI `parkedByTenant`). */
async function queryParkedByTenant(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  state: string,
): Promise<Record<string, unknown>[]> {
  const keys = parkedTenantStateKeys(tenantId, state);
  return (await Promise.all(keys.map((key) => queryIndexKey(client, tableName, JobsIndex.parkedByTenant, key)))).flat();
}

/** Items of one deadline shard (sparse GSI `byDeadline`). */
async function queryDeadlineShard(
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: string,
): Promise<Record<string, unknown>[]> {
  return queryIndexKey(client, tableName, JobsIndex.byDeadline, shard);
}

export { queryDeadlineShard, queryParkedByState, queryParkedByTenant, type StoreFixture, storeFixture };
