import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type Key, queryPage, type StoreConnection } from '../driver/connection.js';
import type { ErasureScope } from '../payloads/erasure-bounds.js';
import { AUDIT_PARTITION, TableKeys } from '../table.js';

/*
 * Audit records written before audit records held pseudonyms only (before 2026-12-06) name the tenant and operation
 * by raw ids, in `tenantId` and `operationId`. The audit partition is write-once for every role the construct
 * creates (no UpdateItem there), so erasure cannot rewrite them: it finds and counts them, and a one-off migration
 * run with an operator's own credentials (`leasefence audit-pseudonymise`, audit-migration.ts) replaces each raw id by
 * its pseudonym.
 */

/** An audit record that still holds a raw id: its key and the raw ids it holds. */
interface RawIdAuditRecord {
  key: { pk: string; sk: string };
  tenantId?: string;
  operationId?: string;
}

const NAMES = {
  '#pk': TableKeys.partition,
  '#sk': TableKeys.sort,
  '#tenantId': 'tenantId',
  '#operationId': 'operationId',
} as const;

/**
 * One page of the audit partition's records holding a raw id (any, or those naming `scope`: its tenant, and its
 * operation when given), consistent, from `startKey` on. Pure.
 */
function buildRawIdAuditQuery(
  tableName: string,
  limit: number,
  startKey?: Key,
  scope?: ErasureScope,
): QueryCommandInput {
  const values: Record<string, string> = { ':pk': AUDIT_PARTITION };
  let filter = 'attribute_exists(#tenantId) OR attribute_exists(#operationId)';
  if (scope !== undefined) {
    values[':tenantId'] = scope.tenantId;
    filter = '#tenantId = :tenantId';
    if (scope.operationId !== undefined) {
      values[':operationId'] = scope.operationId;
      filter += ' AND #operationId = :operationId';
    }
  }
  return {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk',
    FilterExpression: filter,
    ExpressionAttributeNames: { ...NAMES },
    ExpressionAttributeValues: values,
    ProjectionExpression: '#pk, #sk, #tenantId, #operationId',
    ConsistentRead: true,
    Limit: limit,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

/** The raw ids of one audit record as read (non-string values are not ids and are left alone). */
function rawIdRecordOf(item: Record<string, unknown>): RawIdAuditRecord {
  return {
    key: { pk: String(item.pk), sk: String(item.sk) },
    ...(typeof item.tenantId === 'string' ? { tenantId: item.tenantId } : {}),
    ...(typeof item.operationId === 'string' ? { operationId: item.operationId } : {}),
  };
}

/** The audit records that still hold raw ids: found by erasure, rewritten by the one-off migration. */
class AuditRawIds {
  constructor(private readonly db: StoreConnection) {}

  /** One page (at most `limit` records read) of records holding a raw id (naming `scope`, when given). */
  async page(
    limit: number,
    startKey?: Key,
    scope?: ErasureScope,
  ): Promise<{ records: RawIdAuditRecord[]; next?: Key }> {
    const page = await queryPage(this.db.client, buildRawIdAuditQuery(this.db.table.tableName, limit, startKey, scope));
    return { records: page.items.map(rawIdRecordOf), ...(page.next ? { next: page.next } : {}) };
  }
}

export { AuditRawIds, buildRawIdAuditQuery, type RawIdAuditRecord };
