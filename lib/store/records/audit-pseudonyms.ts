import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type ConditionalRequest, sendConditional } from '../driver/conditional-write.js';
import { type Key, queryPage, type StoreConnection } from '../driver/connection.js';
import type { ErasureScope } from '../payloads/erasure-bounds.js';
import { AUDIT_PARTITION, TableKeys } from '../table.js';

/*
 * Audit records written before audit records held pseudonyms only (before 2026-12-06) name the tenant and operation
 * by raw ids, in `tenantId` and `operationId`. The audit partition is write-once for every role the construct
 * creates (no UpdateItem there), so erasure cannot rewrite them: it finds and counts them, and a one-off migration
 * run with an operator's own credentials (`leasefence audit-pseudonymise`) replaces each raw id by its pseudonym.
 */

/** An audit record that still holds a raw id: its key and the raw ids it holds. */
interface RawIdAuditRecord {
  key: { pk: string; sk: string };
  tenantId?: string;
  operationId?: string;
}

/** The pseudonym of a raw id (hashIdentifier under the deployment's key, as the audit writer uses). */
type Pseudonymise = (rawId: string) => string;

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

/**
 * Replaces a record's raw ids by their pseudonyms (`tenant`, `operation`), conditional on the record still holding
 * exactly the raw ids that were read: a repeat, or a record changed in between, writes nothing. Pure.
 */
function buildPseudonymiseRequest(
  tableName: string,
  record: RawIdAuditRecord,
  pseudonymise: Pseudonymise,
): ConditionalRequest {
  const sets: string[] = [];
  const removals: string[] = [];
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, string> = {};
  const parts = [
    ['tenantId', 'tenant', record.tenantId],
    ['operationId', 'operation', record.operationId],
  ] as const;
  for (const [raw, hashed, rawValue] of parts) {
    if (rawValue === undefined) continue;
    names[`#${raw}`] = raw;
    names[`#${hashed}`] = hashed;
    values[`:${raw}`] = rawValue;
    values[`:${hashed}`] = pseudonymise(rawValue);
    sets.push(`#${hashed} = :${hashed}`);
    removals.push(`#${raw}`);
    conditions.push(`#${raw} = :${raw}`);
  }
  return {
    kind: 'update',
    TableName: tableName,
    Key: record.key,
    UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removals.join(', ')}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
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

  /**
   * Replaces one record's raw ids by their pseudonyms; false when it holds none or no longer holds what was read
   * (nothing written). Needs UpdateItem in the audit partition, which no role of the construct has: an operator's
   * own credentials.
   */
  async pseudonymise(record: RawIdAuditRecord, pseudonymise: Pseudonymise): Promise<boolean> {
    if (record.tenantId === undefined && record.operationId === undefined) return false;
    const request = buildPseudonymiseRequest(this.db.table.tableName, record, pseudonymise);
    return (await sendConditional(this.db.client, request)).ok;
  }
}

export { AuditRawIds, buildPseudonymiseRequest, buildRawIdAuditQuery, type Pseudonymise, type RawIdAuditRecord };
