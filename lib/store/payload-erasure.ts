import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import { mapBounded } from '../internal/bounded-parallel.js';
import { type ConditionalRequest, sendConditional } from './conditional-write.js';
import { type Key, queryPage } from './connection.js';
import { ERASED_ATTRIBUTE } from './payloads.js';
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

/** What one erasure may do and where it reports: at most `max` bodies, each counted in `progress` as it goes. */
interface ErasureBounds {
  max: number;
  progress: { deleted: number };
  /** Stamps `erasedAt`. */
  clock: Clock;
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
  while (progress.deleted < max) {
    const page = await queryPage(
      client,
      buildBodyKeysQuery(tableName, partitionKey, Math.min(PAGE_SIZE, max - progress.deleted), startKey),
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
 * Erases a tenant's inline payload bodies in the payloads table `tableName`, partition key by partition key
 * (a Query on each, never a Scan), until `max` are erased; true when none is left. Each body's row stays as a
 * tombstone with its payload hash. `progress` counts every body erased, also when a later request throws (the
 * caller audits what was erased).
 */
async function eraseTenantPayloadBodies(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  bounds: ErasureBounds,
): Promise<boolean> {
  for (const partitionKey of tenantPartitionKeys(tenantId)) {
    if (!(await erasePartition(client, tableName, partitionKey, bounds))) return false;
  }
  return true;
}

export { buildBodyKeysQuery, type ErasureBounds, eraseBodyRequest, eraseTenantPayloadBodies };
