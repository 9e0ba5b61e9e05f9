import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { WorkState } from '../../states.js';
import { type ConditionalRequest, sendConditional } from '../driver/conditional-write.js';
import { type Key, queryPage } from '../driver/connection.js';
import type { TableClient } from '../driver/plain-requests.js';
import { parkedTenantStateKeys } from '../parked/parked-keys.js';
import { type ErasureBounds, type ErasureScope, erasePages } from '../payloads/erasure-bounds.js';
import { JobsIndex, TableKeys } from '../table.js';

/** Rows read per Query page of one parked shard. */
const PAGE_SIZE = 100;

/** Set on a quarantine record whose tenant and operation ids erasure removed (when). */
const IDS_ERASED_ATTRIBUTE = 'idsErasedAt';

/** The scope's names and values shared by the listing's filter and the erase's condition. */
function scopeExpression(scope: ErasureScope): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, string>;
} {
  const names: Record<string, string> = { '#kind': 'kind', '#tenantId': 'tenantId' };
  const values: Record<string, string> = { ':quarantine': 'quarantine', ':tenantId': scope.tenantId };
  let expression = '#kind = :quarantine AND #tenantId = :tenantId';
  if (scope.operationId !== undefined) {
    names['#operationId'] = 'operationId';
    values[':operationId'] = scope.operationId;
    expression += ' AND #operationId = :operationId';
  }
  return { expression, names, values };
}

/**
 * One page of the quarantine records of one shard of the tenant's quarantined listing (parkedByTenant) that name the
 * scope (quarantined work rows share the shard and are left out: their erasure is the row's). Keys only. Pure.
 */
function buildQuarantineIdsQuery(
  tableName: string,
  shardKey: string,
  scope: ErasureScope,
  limit: number,
  startKey?: Key,
): QueryCommandInput {
  const filter = scopeExpression(scope);
  return {
    TableName: tableName,
    IndexName: JobsIndex.parkedByTenant.name,
    KeyConditionExpression: '#shard = :shard',
    FilterExpression: filter.expression,
    ExpressionAttributeNames: {
      '#shard': JobsIndex.parkedByTenant.partition,
      '#pk': TableKeys.partition,
      '#sk': TableKeys.sort,
      ...filter.names,
    },
    ExpressionAttributeValues: { ':shard': shardKey, ...filter.values },
    ProjectionExpression: '#pk, #sk',
    Limit: limit,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

/**
 * Removes the raw tenant and operation ids from one quarantine record, and with them its key in the tenant's parked
 * listing; reason, detail, body digest and message id stay, so the record is still listed (cross-tenant) and still
 * explains the refusal. Conditional on the record still naming the scope: a repeat writes nothing. Pure.
 */
function eraseQuarantineIdsRequest(
  tableName: string,
  key: { pk: string; sk: string },
  scope: ErasureScope,
  now: number,
): ConditionalRequest {
  const condition = scopeExpression(scope);
  return {
    kind: 'update',
    TableName: tableName,
    Key: key,
    UpdateExpression: 'SET #erasedAt = :now REMOVE #tenantId, #operationId, #tenantShard',
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: {
      ...condition.names,
      '#operationId': 'operationId',
      '#erasedAt': IDS_ERASED_ATTRIBUTE,
      '#tenantShard': JobsIndex.parkedByTenant.partition,
    },
    ExpressionAttributeValues: { ...condition.values, ':now': now },
  };
}

/**
 * Erases the raw ids of every quarantine record naming the scope (the worker keeps the tenant and operation of a
 * message it refused, for the tenant's listing): a Query on each shard of the tenant's quarantined listing, never a
 * Scan, one conditional UpdateItem per record, until `max` writes were made; true when none is left. The listing is a
 * global secondary index (eventually consistent): a record written a moment before is found by the next erase.
 */
async function eraseQuarantineIds(
  client: TableClient,
  jobsTable: string,
  scope: ErasureScope,
  bounds: ErasureBounds,
): Promise<boolean> {
  for (const shardKey of parkedTenantStateKeys(scope.tenantId, WorkState.quarantined)) {
    const readPage = async (startKey: Key | undefined) => {
      const page = await queryPage(client, buildQuarantineIdsQuery(jobsTable, shardKey, scope, PAGE_SIZE, startKey));
      const rows = page.items.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
      return { rows, ...(page.next ? { next: page.next } : {}) };
    };
    const done = await erasePages(bounds, readPage, async (key, now) => {
      const outcome = await sendConditional(client, eraseQuarantineIdsRequest(jobsTable, key, scope, now));
      if (outcome.ok) bounds.progress.quarantineCleared = (bounds.progress.quarantineCleared ?? 0) + 1;
    });
    if (!done) return false;
  }
  return true;
}

export { buildQuarantineIdsQuery, eraseQuarantineIds, eraseQuarantineIdsRequest, IDS_ERASED_ATTRIBUTE };
