import type { Clock } from '../../clock.js';
import { sha256Hex } from '../../hashing.js';
import { capMessage, DAY_MS, RetentionDays } from '../../rules.js';
import { WorkState } from '../../states.js';
import { sendPut, type TableClient } from '../driver/plain-requests.js';
import { parkedKeyAttributes, quarantineBucketOf } from '../parked/parked-keys.js';
import { JobsIndex, quarantineKey, TTL_ATTRIBUTE } from '../table.js';

/** Default retention of quarantine records: the one retention default (RetentionDays). */
const DEFAULT_QUARANTINE_RETENTION_MS = RetentionDays.default * DAY_MS;

/**
 * A message that could not be interpreted, kept apart from work items and keyed by the SQS message id.
 * It holds the reason and a hash of the body, never the body; it is listed with the parked items.
 */
interface QuarantineRecord {
  pk: string;
  sk: string;
  kind: 'quarantine';
  messageId: string;
  reason: string;
  detail: string;
  bodySha256: string;
  bodyBytes: number;
  receiveCount?: number;
  /** Tenant, when the envelope named a valid one (for per-tenant listing by the producer's owner). */
  tenantId?: string;
  /** Operation, when the envelope named a valid identity (shown to the operator with the tenant). */
  operationId?: string;
  /** `quarantined#bucket`: the record's shard of the cross-tenant parked index. */
  parkedState: string;
  /** `tenant#bucket#quarantined`, when the envelope named a valid tenant. */
  parkedTenantState?: string;
  parkedAt: number;
  [TTL_ATTRIBUTE]: number;
}

/** What the worker knows about a bad message. */
interface QuarantineInput {
  messageId: string;
  body: string;
  reason: string;
  detail: string;
  receiveCount?: number;
  tenantId?: string;
  /** Only together with `tenantId`: the identity the message carried. */
  operationId?: string;
}

/**
 * Records a bad message idempotently (same message id ▶ same record, last write wins on identical data).
 * Touches no work item. The detail is capped (capMessage) so a hostile body cannot bloat the table.
 */
async function recordQuarantine(
  client: TableClient,
  tableName: string,
  clock: Clock,
  input: QuarantineInput,
  retentionMs = DEFAULT_QUARANTINE_RETENTION_MS,
): Promise<QuarantineRecord> {
  const now = clock.now();
  const messageId = sanitizeMessageId(input.messageId);
  const record: QuarantineRecord = {
    ...quarantineKey(messageId),
    kind: 'quarantine',
    messageId,
    reason: input.reason,
    detail: capMessage(input.detail),
    bodySha256: sha256Hex(input.body),
    bodyBytes: Buffer.byteLength(input.body, 'utf8'),
    ...(input.receiveCount !== undefined ? { receiveCount: input.receiveCount } : {}),
    ...(input.tenantId !== undefined
      ? {
          tenantId: input.tenantId,
          ...(input.operationId !== undefined ? { operationId: input.operationId } : {}),
        }
      : {}),
    // No identity to bucket by: the message id spreads a flood of bad messages over the shards.
    ...parkedKeyAttributes(WorkState.quarantined, quarantineBucketOf(messageId), input.tenantId),
    [JobsIndex.parkedByState.sort]: now,
    [TTL_ATTRIBUTE]: Math.floor((now + retentionMs) / 1000),
  } as QuarantineRecord;
  await sendPut(client, { TableName: tableName, Item: record });
  return record;
}

/** Message ids come from SQS, but a local caller could pass anything: keep the key printable and bounded. */
function sanitizeMessageId(messageId: string): string {
  const cleaned = messageId.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 128);
  return cleaned.length > 0 ? cleaned : `empty-${sha256Hex(messageId).slice(0, 16)}`;
}

export {
  DEFAULT_QUARANTINE_RETENTION_MS,
  type QuarantineInput,
  type QuarantineRecord,
  recordQuarantine,
  sanitizeMessageId,
};
