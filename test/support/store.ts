import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, ManualClock } from '../../lib/clock.js';
import { WorkItemStore } from '../../lib/store/work-item-store.js';
import { JobsIndex, parkedTenantStateKey } from '../../lib/table.js';
import { testDocumentClient } from './engine.js';
import { countRequests, type RequestCounter } from './request-counter.js';

/** One store on its own client, with a request counter and (by default) a ManualClock. */
interface StoreFixture {
  client: DynamoDBDocumentClient;
  store: WorkItemStore;
  counter: RequestCounter;
  clock: ManualClock;
}

/** A store on a fresh DocumentClient; pass `clock` to share one ManualClock between several stores. */
function storeFixture(tableName: string, options: { clock?: ManualClock; maxAttempts?: number } = {}): StoreFixture {
  const client = testDocumentClient(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {});
  const clock = options.clock ?? new ManualClock();
  const store = new WorkItemStore({ client, tableName, clock: clock as Clock });
  return { client, store, counter: countRequests(client), clock };
}

/** Items of the cross-tenant parked index in `state` (sparse GSI `parkedByState`). */
async function queryParkedByState(
  client: DynamoDBDocumentClient,
  tableName: string,
  state: string,
): Promise<Record<string, unknown>[]> {
  const output = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: JobsIndex.parkedByState.name,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': JobsIndex.parkedByState.partition },
      ExpressionAttributeValues: { ':p': state },
    }),
  );
  return output.Items ?? [];
}

/** Items of one tenant's parked index in `state` (sparse GSI `parkedByTenant`). */
async function queryParkedByTenant(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  state: string,
): Promise<Record<string, unknown>[]> {
  const output = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: JobsIndex.parkedByTenant.name,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': JobsIndex.parkedByTenant.partition },
      ExpressionAttributeValues: { ':p': parkedTenantStateKey(tenantId, state) },
    }),
  );
  return output.Items ?? [];
}

/** Items of one deadline shard (sparse GSI `byDeadline`). */
async function queryDeadlineShard(
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: string,
): Promise<Record<string, unknown>[]> {
  const output = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: JobsIndex.byDeadline.name,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': JobsIndex.byDeadline.partition },
      ExpressionAttributeValues: { ':p': shard },
    }),
  );
  return output.Items ?? [];
}

export { queryDeadlineShard, queryParkedByState, queryParkedByTenant, type StoreFixture, storeFixture };
