import { randomUUID } from 'node:crypto';
import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type Key, type QueryPage, queryPage, type StoreConnection } from '../driver/connection.js';
import { sendPut } from '../driver/plain-requests.js';
import { AUDIT_PARTITION, TableKeys } from '../table.js';
import type { CallerIdentity } from '../work-items/work-item.js';
import { AuditRawIds } from './audit-pseudonyms.js';

/**
 * An admin action that concerns no single work item (DLQ redrive, payload erasure, raise fences), kept in the
 * jobs table under AUDIT_PARTITION. Item transitions are audited on the item itself, in the same write.
 */
interface AuditRecord {
  pk: typeof AUDIT_PARTITION;
  sk: string;
  kind: 'audit';
  auditId: string;
  at: number;
  actor: string;
  /** The AWS caller behind `actor` (account, unique user id, access key id), when AWS authenticated the call. */
  caller?: CallerIdentity;
  action: string;
  reason?: string;
  /** The tenant the action concerned, as its keyed pseudonym (hashIdentifier): an audit record keeps no raw id. */
  tenant?: string;
  /** The operation the action concerned, as its keyed pseudonym (hashIdentifier). */
  operation?: string;
  counts: Record<string, number>;
}

/** What to record: who, what, why, the pseudonyms of what it concerned, and the counts the action produced. */
type AuditInput = Pick<AuditRecord, 'actor' | 'caller' | 'action' | 'reason' | 'tenant' | 'operation' | 'counts'>;

/** Sort key: time first, so the partition reads in chronological order; the id keeps it unique. */
function auditSortKey(at: number, auditId: string): string {
  return `audit#${new Date(at).toISOString()}#${auditId}`;
}

/** The audit record of `input` at `at` under `auditId`. Pure. */
function auditRecord(input: AuditInput, at: number, auditId: string): AuditRecord {
  return {
    pk: AUDIT_PARTITION,
    sk: auditSortKey(at, auditId),
    kind: 'audit',
    auditId,
    at,
    actor: input.actor,
    ...(input.caller !== undefined ? { caller: input.caller } : {}),
    action: input.action,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    ...(input.operation !== undefined ? { operation: input.operation } : {}),
    counts: input.counts,
  };
}

/** PutItem of one audit record that never overwrites a row (the key embeds a fresh id). Pure. */
function buildAuditPut(tableName: string, record: AuditRecord): PutCommandInput {
  return {
    TableName: tableName,
    Item: record,
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: { '#pk': TableKeys.partition },
  };
}

/** One page of the audit partition, newest first. Pure. */
function buildAuditPageQuery(tableName: string, limit: number, startKey?: Key): QueryCommandInput {
  return {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': TableKeys.partition },
    ExpressionAttributeValues: { ':pk': AUDIT_PARTITION },
    ScanIndexForward: false,
    Limit: limit,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

/** The audit partition of the jobs table: records written once, read newest first. */
class AuditLog {
  /** Records written before pseudonyms, still holding raw ids (found by erasure, rewritten by the migration). */
  readonly rawIds: AuditRawIds;

  constructor(private readonly db: StoreConnection) {
    this.rawIds = new AuditRawIds(db);
  }

  /** Writes one audit record stamped `at` (never overwrites one: fresh id in the key). Throws on a storage error. */
  async put(input: AuditInput, at: number): Promise<AuditRecord> {
    const record = auditRecord(input, at, randomUUID());
    await sendPut(this.db.client, buildAuditPut(this.db.table.tableName, record));
    return record;
  }

  /** One page of audit records, newest first, from `startKey` (a key this partition returned) on. */
  page(limit: number, startKey?: Key): Promise<QueryPage> {
    return queryPage(this.db.client, buildAuditPageQuery(this.db.table.tableName, limit, startKey));
  }
}

export { type AuditInput, AuditLog, type AuditRecord, auditRecord, buildAuditPageQuery, buildAuditPut };
