import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { parseInput } from '../internal/validation.js';
import { AUDIT_PARTITION, TableKeys } from '../store/table.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type AdminDeps, adminClock } from './deps.js';
import { pageLimitSchema } from './schemas.js';
import { type RecordView, recordView } from './views.js';

/**
 * An admin action that concerns no single work item (DLQ redrive, payload erasure), kept in the jobs table
 * under AUDIT_PARTITION. Item transitions are audited on the item itself, in the same write.
 */
interface AuditRecord {
  pk: typeof AUDIT_PARTITION;
  sk: string;
  kind: 'audit';
  auditId: string;
  at: number;
  actor: string;
  action: string;
  reason?: string;
  tenantId?: string;
  counts: Record<string, number>;
}

/** What to record: who, what, why, and the counts the action produced. */
type AuditInput = Pick<AuditRecord, 'actor' | 'action' | 'reason' | 'tenantId' | 'counts'>;

/** Sort key: time first, so the partition reads in chronological order; the id keeps it unique. */
function auditSortKey(at: number, auditId: string): string {
  return `audit#${new Date(at).toISOString()}#${auditId}`;
}

/** Writes one audit record (never overwrites one: the key embeds a fresh id). Throws on a storage error. */
async function writeAuditRecord(deps: AdminDeps, input: AuditInput): Promise<AuditRecord> {
  const at = adminClock(deps).now();
  const auditId = randomUUID();
  const record: AuditRecord = {
    pk: AUDIT_PARTITION,
    sk: auditSortKey(at, auditId),
    kind: 'audit',
    auditId,
    at,
    actor: input.actor,
    action: input.action,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
    ...(input.tenantId !== undefined ? { tenantId: input.tenantId } : {}),
    counts: input.counts,
  };
  await deps.store.client.send(
    new PutCommand({
      TableName: deps.store.table.tableName,
      Item: record,
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': TableKeys.partition },
    }),
  );
  return record;
}

const listAuditSchema = z.strictObject({ limit: pageLimitSchema.default(25), cursor: z.string().optional() });

/** Lists audit records newest first, one Query per page, with an opaque validated cursor. */
async function listAuditRecords(
  deps: AdminDeps,
  input: { limit?: number; cursor?: string } = {},
): Promise<{ records: RecordView[]; cursor?: string }> {
  const valid = parseInput(listAuditSchema, input, 'audit listing');
  const scope = `audit:${AUDIT_PARTITION}`;
  const startKey = decodeCursor(scope, valid.cursor, [TableKeys.partition, TableKeys.sort], {
    [TableKeys.partition]: AUDIT_PARTITION,
  });
  const output = await deps.store.client.send(
    new QueryCommand({
      TableName: deps.store.table.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TableKeys.partition },
      ExpressionAttributeValues: { ':pk': AUDIT_PARTITION },
      ScanIndexForward: false,
      Limit: valid.limit,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    }),
  );
  const cursor = encodeCursor(scope, output.LastEvaluatedKey);
  return { records: (output.Items ?? []).map(recordView), ...(cursor ? { cursor } : {}) };
}

export { type AuditInput, type AuditRecord, listAuditRecords, writeAuditRecord };
