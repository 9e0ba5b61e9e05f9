import { formatIdentity } from '../../lib/identity.js';
import { cell, formatTable, relativeTime } from './output.js';

/** A record as the admin operations return it (work item, quarantine record). */
type Row = Record<string, unknown>;

/**
 * `tenant/operation` for a work item; for a quarantine record `message <id>`, with the identity the message
 * named (`show` finds the message by it): a quarantined message is not a work item, and must not read as one.
 */
function subject(row: Row): string {
  if (row.kind === 'quarantine') {
    const carried = typeof row.tenantId === 'string' && typeof row.operationId === 'string';
    return `message ${cell(row.messageId)}${carried ? ` (named ${row.tenantId}/${row.operationId})` : ''}`;
  }
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

/** Items of any state (a tenant's listing): state, fence, the outcome or error code, last change. */
function itemsTable(rows: readonly Row[], now: number): string {
  return formatTable(
    ['ITEM', 'TYPE', 'STATE', 'FENCE', 'ATTEMPTS', 'CODE', 'UPDATED'],
    rows.map((row) => [
      subject(row),
      cell(row.jobType),
      cell(row.state),
      cell(row.fence),
      `${cell(row.attempts)}/${cell(row.maxAttempts)}`,
      cell(row.outcomeCode ?? row.errorCode),
      relativeTime(row.updatedAt, now),
    ]),
  );
}

export { claimedTable, itemsTable, parkedTable, queuedTable, type Row, subject };
