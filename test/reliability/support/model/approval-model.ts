import type { WorkState } from '../../../../lib/states.js';
import { APPROVAL_WAIT_MS, type ApprovalCommand, type GateKind, type Rival } from './approval-commands.js';
import type { Command } from './commands.js';

/*
 * The approval gate as the reference model predicts it, written from DESIGN.md and the issue (no code shared with
 * lib/): a gated job is created awaiting_approval with fence 0, no attempt and no lease; approve moves it to queued
 * (due now, fence kept) only for the row's own payload hash and, for `not-producer`, only by another principal;
 * reject and the sweeper past the expiry cancel it (fence + 1).
 */

/** Why a decision was refused, or done; the names the library's refusals carry. */
type DecisionResult =
  | 'ok'
  | 'not_found'
  | 'not_awaiting_approval'
  | 'payload_hash_mismatch'
  | 'approval_expired'
  | 'approver_is_producer'
  /** Never expected: the model's rows all have their approval record opened when created (as the worker does). */
  | 'approval_not_open';

/** The fields of a model item the approval gate reads and writes. */
interface GatedFields {
  state: WorkState;
  fence: number;
  hash: 'main' | 'other';
  availableAt?: number;
  approvalExpiresAt?: number;
  approvers?: 'anyone' | 'not-producer';
}

/** The gate fields of a new row: none, or awaiting_approval until `now` + the wait. */
function gateOf(gate: GateKind, now: number): Pick<GatedFields, 'approvalExpiresAt' | 'approvers'> | undefined {
  if (gate === 'none') return undefined;
  return { approvalExpiresAt: now + APPROVAL_WAIT_MS, approvers: gate };
}

/**
 * Approve: refusals first that applies (not awaiting, another hash, the window closed, the approver rule), else ▶
 * queued due now. A window that closed refuses even while the sweeper has not yet cancelled the row.
 */
function approveModel<Item extends GatedFields>(
  item: Item | undefined,
  command: Extract<ApprovalCommand, { kind: 'approve' }>,
  now: number,
): DecisionResult {
  if (!item) return 'not_found';
  if (item.state !== 'awaiting_approval') return 'not_awaiting_approval';
  if (item.hash !== (command.conflict ? 'other' : 'main')) return 'payload_hash_mismatch';
  if ((item.approvalExpiresAt ?? Number.POSITIVE_INFINITY) < now) return 'approval_expired';
  if (item.approvers === 'not-producer' && command.approver !== 'other') return 'approver_is_producer';
  item.state = 'queued';
  item.availableAt = now;
  delete item.approvalExpiresAt;
  delete item.approvers;
  return 'ok';
}

/** Reject: only while awaiting; ▶ cancelled with fence + 1. */
function rejectModel<Item extends GatedFields>(item: Item | undefined): DecisionResult {
  if (!item) return 'not_found';
  if (item.state !== 'awaiting_approval') return 'not_awaiting_approval';
  cancelGated(item);
  return 'ok';
}

/** The sweeper's expiry: every row still awaiting past its expiry ▶ cancelled, fence + 1; returns how many. */
function expireModel<Item extends GatedFields>(items: ReadonlyArray<Item | undefined>, now: number): number {
  let expired = 0;
  for (const item of items) {
    if (item?.state !== 'awaiting_approval' || (item.approvalExpiresAt ?? 0) >= now) continue;
    cancelGated(item);
    expired += 1;
  }
  return expired;
}

function cancelGated(item: GatedFields): void {
  item.state = 'cancelled';
  item.fence += 1;
  delete item.approvalExpiresAt;
  delete item.approvers;
}

/** The approval a race sends: the row's own (main) payload hash, by a principal other than the producer. */
function racingApproval(id: number): Extract<ApprovalCommand, { kind: 'approve' }> {
  return { kind: 'approve', id, conflict: false, approver: 'other' };
}

/** The command an approval races, as the model's own command (an expiry is a sweep once the clock passed it). */
function rivalCommand(id: number, rival: Rival): Command {
  if (rival === 'cancel') return { kind: 'cancel', id };
  if (rival === 'reject') return { kind: 'reject', id };
  return { kind: 'sweep' };
}

export {
  approveModel,
  type DecisionResult,
  expireModel,
  type GatedFields,
  gateOf,
  racingApproval,
  rejectModel,
  rivalCommand,
};
