import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type ConditionalRequest, sendConditional } from '../driver/conditional-write.js';
import { type Key, queryPage } from '../driver/connection.js';
import type { TableClient } from '../driver/plain-requests.js';
import { eraseQuarantineIds } from '../records/quarantine-erasure.js';
import { erasePartitionShadows } from '../shadow/shadow-erasure.js';
import { identityPartitionKey, KeyPrefix, TableKeys, TTL_ATTRIBUTE, tenantPartitionKeys } from '../table.js';
import {
  type ErasureBounds,
  type ErasureProgress,
  type ErasureScope,
  erasePages,
  erasureKeyCondition,
} from './erasure-bounds.js';
import { ERASED_ATTRIBUTE } from './payloads.js';
import { eraseRowText, workRowsWithText } from './row-text.js';

/** Rows read per Query page. */
const PAGE_SIZE = 100;

/**
 * Keys of the bodies of one partition key not yet erased (tombstones are skipped), from `startKey` on; with
 * `operationId`, that operation's body only. Pure.
 */
function buildBodyKeysQuery(
  tableName: string,
  partitionKey: string,
  limit: number,
  startKey?: Key,
  operationId?: string,
): QueryCommandInput {
  const condition = erasureKeyCondition(partitionKey, KeyPrefix.payload, operationId);
  return {
    TableName: tableName,
    KeyConditionExpression: condition.KeyConditionExpression,
    // Tombstones (already erased) are skipped, so a repeated erase rewrites nothing.
    FilterExpression: 'attribute_exists(#body)',
    ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort, '#body': 'body' },
    ExpressionAttributeValues: condition.values,
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
 * each) until `max` writes were made; true when the partition has none left.
 */
async function erasePartition(
  client: TableClient,
  tableName: string,
  partitionKey: string,
  bounds: ErasureBounds,
  operationId?: string,
): Promise<boolean> {
  const readPage = async (startKey: Key | undefined, remaining: number) => {
    const query = buildBodyKeysQuery(tableName, partitionKey, Math.min(PAGE_SIZE, remaining), startKey, operationId);
    const page = await queryPage(client, query);
    const rows = page.items.map((item) => ({ pk: item.pk, sk: item.sk }));
    return { rows, ...(page.next ? { next: page.next } : {}) };
  };
  return erasePages(bounds, readPage, async (key, now) => {
    const outcome = await sendConditional(client, eraseBodyRequest(tableName, key, now));
    if (outcome.ok) bounds.progress.deleted += 1;
  });
}

/**
 * Removes the text of the work rows of one partition key of the jobs table (result, error message, step results:
 * a job's result or an error can quote its payload) until `max` writes were made; true when none is left.
 */
async function clearPartitionText(
  client: TableClient,
  jobsTable: string,
  partitionKey: string,
  bounds: ErasureBounds,
  operationId?: string,
): Promise<boolean> {
  const readPage = (startKey: Key | undefined) =>
    workRowsWithText(client, jobsTable, partitionKey, PAGE_SIZE, startKey, operationId);
  return erasePages(bounds, readPage, async (row, now) => {
    if (await eraseRowText(client, jobsTable, row, now)) bounds.progress.cleared += 1;
  });
}

/** Where a tenant's data lives: its payload bodies, and the work rows whose text erasure removes. */
interface ErasureTables {
  payloadsTable: string;
  jobsTable: string;
}

/**
 * Erases a tenant's (or, with `scope.operationId`, one operation's) inline payload bodies, work rows' text and shadow
 * rows' executions, partition key by partition key, then the raw ids of the quarantine records naming it
 * (eraseQuarantineIds) (a Query on each, never a Scan; one operation: its own partition
 * key and exact sort keys), until `max` writes were made; true when nothing is left. Each body's row stays as a
 * tombstone with its payload hash; each work row keeps identity, hash, state, codes and fence. `progress` counts
 * every write, also when a later request throws (the caller audits what was erased).
 */
async function eraseTenantData(
  client: TableClient,
  tables: ErasureTables,
  scope: ErasureScope,
  bounds: ErasureBounds,
): Promise<boolean> {
  const { tenantId, operationId } = scope;
  const partitionKeys =
    operationId === undefined ? tenantPartitionKeys(tenantId) : [identityPartitionKey({ tenantId, operationId })];
  for (const partitionKey of partitionKeys) {
    if (!(await erasePartition(client, tables.payloadsTable, partitionKey, bounds, operationId))) return false;
    if (!(await clearPartitionText(client, tables.jobsTable, partitionKey, bounds, operationId))) return false;
    if (!(await erasePartitionShadows(client, tables.jobsTable, partitionKey, bounds, operationId))) return false;
  }
  return eraseQuarantineIds(client, tables.jobsTable, scope, bounds);
}

export {
  buildBodyKeysQuery,
  type ErasureBounds,
  type ErasureProgress,
  type ErasureScope,
  eraseBodyRequest,
  eraseTenantData,
};
