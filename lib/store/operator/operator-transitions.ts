import { WorkState } from '../../states.js';
import { ATTEMPT_HISTORY_ATTRIBUTE, closeAttempts } from '../work-items/attempt-history.js';
import { LEASE_ATTRIBUTES, PARKED_ATTRIBUTES, parkedAttributes } from '../work-items/requests.js';
import type { CallerIdentity, OperatorStatement, WorkItem } from '../work-items/work-item.js';
import { DEFAULT_WORKER_MAX_RUN_MS, noHolderRunning } from './holder-bound.js';
import type { OperatorTransition } from './operator-requests.js';

/**
 * The transitions made by someone other than the holder (operator, sweeper): each is conditional on the state
 * and fence the caller observed and raises the fence, so a running holder's next fenced write is refused.
 */

/** Who did an operator action (and the AWS caller behind it, when authenticated), and why (stored in the audit trail). */
interface OperatorAction {
  actor: string;
  caller?: CallerIdentity;
  reason: string;
}

/** The attempt-history change of an operator transition: a running attempt (claimed) is closed with `code`. */
function closeRunningAttempt(item: WorkItem, now: number, code: string): Record<string, unknown> {
  if (item.state !== WorkState.claimed) return {};
  return { [ATTEMPT_HISTORY_ATTRIBUTE]: closeAttempts(item.ah, item.fence, now, code) };
}

/** awaiting_approval | queued | claimed | unknown ▶ cancelled, fence + 1: the running worker's next fenced write is rejected. */
function cancelTransition(item: WorkItem, action: OperatorAction, now: number): OperatorTransition {
  return {
    expected: { state: item.state, fence: item.fence },
    to: WorkState.cancelled,
    set: { finishedAt: now, ...closeRunningAttempt(item, now, 'cancelled') },
    remove: [...LEASE_ATTRIBUTES, ...PARKED_ATTRIBUTES],
    audit: { ...action, action: 'cancel' },
  };
}

/** Sweeper: claimed, lease expired, attempts exhausted ▶ unknown, fence + 1; never overrides a fresher claim. */
function sweepToUnknownTransition(item: WorkItem, now: number): OperatorTransition {
  const identity = { tenantId: item.tenantId, operationId: item.operationId };
  return {
    expected: { state: WorkState.claimed, fence: item.fence },
    to: WorkState.unknown,
    set: {
      errorCode: 'lease_expired_attempts_exhausted',
      errorMessage: 'the last attempt lost its lease and no attempts remain; outcome unconfirmed',
      finishedAt: now,
      ...parkedAttributes(identity, WorkState.unknown, now),
      ...closeRunningAttempt(item, now, 'lease_expired_attempts_exhausted'),
    },
    remove: LEASE_ATTRIBUTES,
    condition: (x) =>
      `${x.name('leaseExpiresAt')} < ${x.value(now)} AND ${x.name('attempts')} >= ${x.name('maxAttempts')}`,
  };
}

/** unknown ▶ succeeded | failed_terminal after reconciliation, audited. */
function resolveTransition(
  item: WorkItem,
  to: typeof WorkState.succeeded | typeof WorkState.failed_terminal,
  action: OperatorAction & { outcomeCode?: string },
  now: number,
): OperatorTransition {
  const identity = { tenantId: item.tenantId, operationId: item.operationId };
  const outcome =
    to === WorkState.succeeded
      ? { outcomeCode: action.outcomeCode ?? 'resolved_by_operator' }
      : { errorCode: action.outcomeCode ?? 'resolved_failed_by_operator', ...parkedAttributes(identity, to, now) };
  return {
    expected: { state: item.state, fence: item.fence },
    to,
    set: { ...outcome, finishedAt: now },
    remove: [...LEASE_ATTRIBUTES, ...(to === WorkState.succeeded ? PARKED_ATTRIBUTES : [])],
    audit: {
      actor: action.actor,
      ...(action.caller ? { caller: action.caller } : {}),
      reason: action.reason,
      action: `resolve_${to}`,
    },
  };
}

/**
 * unknown | failed_terminal | quarantined ▶ queued with a fresh attempt budget; identity and fence continue.
 * The effect mark stays (the next claim of a class C job reconciles first) unless the operator states that
 * the effect did not happen: that statement clears it and is kept in the audit entry, and the write lands only
 * once no holder of the last claim can still be running (its claim at least `workerMaxRunMs` before `now`,
 * checked inside the write; default DEFAULT_WORKER_MAX_RUN_MS): a stalled holder's late call would otherwise
 * be a second attempt beside the requeued one.
 */
function requeueTransition(
  item: WorkItem,
  action: OperatorAction & { statement?: OperatorStatement; auditAction?: string; workerMaxRunMs?: number },
  deadlineShard: string,
  now: number,
): OperatorTransition {
  const { statement, auditAction, workerMaxRunMs, ...who } = action;
  return {
    expected: { state: item.state, fence: item.fence },
    to: WorkState.queued,
    set: { availableAt: now, deadlineShard, deadlineAt: now },
    remove: [
      'leaseOwner',
      'leaseExpiresAt',
      'finishedAt',
      ...PARKED_ATTRIBUTES,
      ...(statement === 'effect_did_not_happen' ? ['effectMayHaveHappened'] : []),
    ],
    audit: { ...who, action: auditAction ?? 'retry', ...(statement ? { statement } : {}) },
    ...(statement === 'effect_did_not_happen'
      ? { condition: noHolderRunning(workerMaxRunMs ?? DEFAULT_WORKER_MAX_RUN_MS, now) }
      : {}),
    resetAttempts: true,
  };
}

/**
 * Any state ▶ the same state with the fence set to `fenceTo` (above every fence written before a restore of
 * the jobs table), audited. A running holder is cut off exactly as by a cancel; nothing else changes.
 */
function raiseFenceTransition(item: WorkItem, fenceTo: number, action: OperatorAction): OperatorTransition {
  return {
    expected: { state: item.state, fence: item.fence },
    to: item.state,
    set: {},
    fenceTo,
    audit: { ...action, action: 'raise_fence' },
  };
}

export {
  cancelTransition,
  type OperatorAction,
  raiseFenceTransition,
  requeueTransition,
  resolveTransition,
  sweepToUnknownTransition,
};
