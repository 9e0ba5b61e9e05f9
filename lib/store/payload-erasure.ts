import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mapBounded } from '../internal/bounded-parallel.js';
import { type ConditionalRequest, sendConditional } from './conditional-write.js';
import { type Key, queryPage } from './connection.js';
import { type ErasureBounds, type ErasureProgress, written } from './erasure-bounds.js';
import { ERASED_ATTRIBUTE } from './payloads.js';
import { eraseRowText, workRowsWithText } from './row-text.js';
import { erasePartitionShadows } from './shadow-erasure.js';
import { KeyPrefix, TableKeys, TTL_ATTRIBUTE, tenantPartitionKeys } from './table.js';

/** Bodies read per Query page, and erase writes in flight at once. */
const PAGE_SIZE = 100;
const ERASES_IN_FLIGHT = 10;

/** Keys of the bodies of one partition key not yet erased (tombstones are skipped), from `startKey` on. Pure. */
function buildBodyKeysQuery(tableName: string, partitionKey: string, limit: number, startKey?: Key): QueryCommandInput {
  return {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    // Tombstones (already erased) are skipped, so a repeated erase rewrites nothing.
    FilterExpression: 'attribute_exists(#body)',
    ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort, '#body': 'body' },
    ExpressionAttributeValues: { ':pk': partitionKey, ':prefix': KeyPrefix.payload },
    ProjectionExpression: '#pk, #sk',
    Limit: limit,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

/**
 * Erases one body: removes it and the TTL (the tombstone must outlive the retention to keep the binding) and
 * records when. Conditional on a body being there, so a repeated erase changes nothing. Pure.
 */
function eraseBodyRequest(tableName: string, key: Record<string, unknown>, now: number): ConditionalRequest {
  return {
    kind: 'update',
    TableName: tableName,
    Key: key,
    UpdateExpression: 'SET #erasedAt = :now REMOVE #body, #ttl',
    ConditionExpression: 'attribute_exists(#body)',
    ExpressionAttributeNames: { '#erasedAt': ERASED_ATTRIBUTE, '#body': 'body', '#ttl': TTL_ATTRIBUTE },
    ExpressionAttributeValues: { ':now': now },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * Erases the bodies of one partition key (Query pages of bodies not yet erased, one conditional UpdateItem
 * each) until `progress.deleted` reaches `max`; true when the partition has none left.
 */
async function erasePartition(
  client: DynamoDBDocumentClient,
  tableName: string,
  partitionKey: string,
  bounds: ErasureBounds,
): Promise<boolean> {
  const { max, progress } = bounds;
  let startKey: Key | undefined;
  while (written(progress) < max) {
    const page = await queryPage(
      client,
      buildBodyKeysQuery(tableName, partitionKey, Math.min(PAGE_SIZE, max - written(progress)), startKey),
    );
    const keys = page.items.map((item) => ({ pk: item.pk, sk: item.sk }));
    const now = bounds.clock.now();
    await mapBounded(keys, ERASES_IN_FLIGHT, async (key) => {
      const outcome = await sendConditional(client, eraseBodyRequest(tableName, key, now));
      if (outcome.ok) progress.deleted += 1;
    });
    startKey = page.next;
    if (!startKey) return true;
  }
  return false;
}

/**
 * Removes the text of the work rows of one partition key of the jobs table (result, error message, step results:
 * a job's result or an error can quote its payload) until `max` writes were made; true when none is left.
 */
async function clearPartitionText(
  client: DynamoDBDocumentClient,
  jobsTable: string,
  partitionKey: string,
  bounds: ErasureBounds,
): Promise<boolean> {
  const { max, progress } = bounds;
  let startKey: Key | undefined;
  while (written(progress) < max) {
    const page = await workRowsWithText(client, jobsTable, partitionKey, PAGE_SIZE, startKey);
    const rows = page.rows.slice(0, max - written(progress));
    const now = bounds.clock.now();
    await mapBounded(rows, ERASES_IN_FLIGHT, async (row) => {
      if (await eraseRowText(client, jobsTable, row, now)) progress.cleared += 1;
    });
    // A page cut short by `max` is read again next call (rows already cleared no longer match).
    if (rows.length < page.rows.length) return false;
    startKey = page.next;
    if (!startKey) return true;
  }
  return false;
}

/** Where a tenant's data lives: its payload bodies, and the work rows whose text erasure removes. */
interface ErasureTables {
  payloadsTable: string;
  jobsTable: string;
}

/**
 * Erases a tenant's inline payload bodies, its work rows' text and its shadow rows' executions, partition key by partition key (a Query on
 * each, never a Scan), until `max` writes were made; true when nothing is left. Each body's row stays as a
 * tombstone with its payload hash; each work row keeps identity, hash, state, codes and fence. `progress` counts
 * every write, also when a later request throws (the caller audits what was erased).
 */
async function eraseTenantData(
  client: DynamoDBDocumentClient,
  tables: ErasureTables,
  tenantId: string,
  bounds: ErasureBounds,
): Promise<boolean> {
  for (const partitionKey of tenantPartitionKeys(tenantId)) {
    if (!(await erasePartition(client, tables.payloadsTable, partitionKey, bounds))) return false;
    if (!(await clearPartitionText(client, tables.jobsTable, partitionKey, bounds))) return false;
    if (!(await erasePartitionShadows(client, tables.jobsTable, partitionKey, bounds))) return false;
  }
  return true;
}

export { buildBodyKeysQuery, type ErasureBounds, type ErasureProgress, eraseBodyRequest, eraseTenantData };
