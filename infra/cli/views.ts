import { formatIdentity } from '../../lib/identity.js';
import { cell, formatTable, relativeTime } from './output.js';

/** A record as the admin operations return it (work item, quarantine record). */
type Row = Record<string, unknown>;

/** `tenant/operation`, or the quarantined message id for a record without an identity. */
function subject(row: Row): string {
  if (row.kind === 'quarantine') return `(message ${cell(row.messageId)})`;
  return formatIdentity({ tenantId: String(row.tenantId), operationId: String(row.operationId) });
}

/** Parked items: unknown, quarantined, failed_terminal (work items and quarantine records). */
function parkedTable(rows: readonly Row[], now: number): string {
  return formatTable(
    ['ITEM', 'TYPE', 'FENCE', 'ATTEMPTS', 'CODE', 'PARKED'],
    rows.map((row) => [
      subject(row),
      cell(row.jobType),
      cell(row.fence),
      row.kind === 'quarantine' ? '-' : `${cell(row.attempts)}/${cell(row.maxAttempts)}`,
      cell(row.errorCode ?? row.reason),
      relativeTime(row.parkedAt, now),
    ]),
  );
}

/**
 * Claimed items with their lease holder and deadline, as the deadline index holds them: the deadline is the
 * lease expiry as of the claim (heartbeats extend the lease on the row only; `leasefence show` has it).
 */
function claimedTable(rows: readonly Row[], now: number): string {
  return formatTable(
    ['ITEM', 'TYPE', 'FENCE', 'ATTEMPTS', 'OWNER', 'DEADLINE', 'CREATED'],
    rows.map((row) => [
      subject(row),
      cell(row.jobType),
      cell(row.fence),
      `${cell(row.attempts)}/${cell(row.maxAttempts)}`,
      cell(row.leaseOwner),
      relativeTime(row.deadlineAt, now),
      relativeTime(row.createdAt, now),
    ]),
  );
}

/** Queued items with when they are due. */
function queuedTable(rows: readonly Row[], now: number): string {
  return formatTable(
    ['ITEM', 'TYPE', 'FENCE', 'ATTEMPTS', 'DUE', 'LAST ERROR', 'CREATED'],
    rows.map((row) => [
      subject(row),
      cell(row.jobType),
      cell(row.fence),
      `${cell(row.attempts)}/${cell(row.maxAttempts)}`,
      relativeTime(row.availableAt, now),
      cell(row.errorCode),
      relativeTime(row.createdAt, now),
    ]),
  );
}

export { claimedTable, parkedTable, queuedTable, type Row, subject };
