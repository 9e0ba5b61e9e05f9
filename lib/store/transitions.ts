import { jobOutcomeSchema } from '../rules.js';
import { WorkState } from '../states.js';
import { parseInputOnce, vouchFor } from '../validation.js';
import { ATTEMPT_HISTORY_ATTRIBUTE, closeAttempts } from './attempt-history.js';
import {
  type HolderTransition,
  LEASE_ATTRIBUTES,
  type OperatorTransition,
  PARKED_ATTRIBUTES,
  parkedAttributes,
} from './requests.js';
import type { Claim, OperatorStatement, WorkItem } from './work-item.js';

/**
 * The named transitions of the work-item state machine. Holder transitions are applied through the one
 * fenced write; operator transitions are conditional on the observed state and fence and raise the fence.
 */

/** The item now shows `state` under the claim's own fence: only this claim's holder can have put it there. */
function landedUnderMyFence(state: WorkState) {
  return (item: WorkItem, claim: Claim) => item.state === state && item.fence === claim.fence;
}

/**
 * Renew the lease, only while it has not expired (`leaseExpiresAt > now` in the condition): a renewal that
 * arrives late never revives a lapsed lease, even when nobody has taken over yet. Only unindexed attributes
 * change, so a heartbeat writes the row and no index (the deadline index keeps the claim's deadline; the
 * sweeper checks the real lease). A retried heartbeat whose first try committed is recognised as applied.
 */
function heartbeatTransition(leaseExpiresAt: number, now: number): HolderTransition {
  return {
    name: 'heartbeat',
    set: { leaseExpiresAt, updatedAt: now },
    condition: (x) => `${x.name('leaseExpiresAt')} > ${x.value(now)}`,
    appliedIn: (item, claim) =>
      item.state === WorkState.claimed && item.fence === claim.fence && (item.leaseExpiresAt ?? 0) >= leaseExpiresAt,
  };
}

/** Outcome of a successful job: a short code and a small JSON result (never the payload). */
interface JobOutcome {
  outcomeCode: string;
  result?: unknown;
}

/**
 * A job's outcome, validated once (InvalidInputError naming every bad field; nothing written). The returned
 * copy is frozen and vouched for, so the runtime's validated outcome passes the store's check without a second walk.
 */
function parseJobOutcome(value: unknown, what = 'job outcome'): JobOutcome {
  const outcome = parseInputOnce(jobOutcomeSchema, value, what);
  return outcome === value ? outcome : vouchFor(jobOutcomeSchema, outcome);
}

/** claimed ▶ succeeded. */
function completeTransition(outcome: JobOutcome, now: number): HolderTransition {
  return {
    name: 'complete',
    set: {
      state: WorkState.succeeded,
      outcomeCode: outcome.outcomeCode,
      result: outcome.result,
      finishedAt: now,
      updatedAt: now,
    },
    remove: LEASE_ATTRIBUTES,
    endsAttempt: { code: outcome.outcomeCode, at: now },
    // My earlier send of this same completion, not a different outcome under my fence.
    appliedIn: (item, claim) =>
      landedUnderMyFence(WorkState.succeeded)(item, claim) && item.outcomeCode === outcome.outcomeCode,
  };
}

/** A failure with a code and a message safe to store (no payload data). */
interface FailureReport {
  errorCode: string;
  message?: string;
}

/** claimed ▶ failed_terminal (parked for the owner). */
function failTerminalTransition(claim: Claim, failure: FailureReport, now: number): HolderTransition {
  return {
    name: 'fail_terminal',
    set: {
      state: WorkState.failed_terminal,
      errorCode: failure.errorCode,
      errorMessage: failure.message,
      finishedAt: now,
      updatedAt: now,
      ...parkedAttributes(claim.identity, WorkState.failed_terminal, now),
    },
    remove: LEASE_ATTRIBUTES,
    endsAttempt: { code: failure.errorCode, at: now },
    appliedIn: landedUnderMyFence(WorkState.failed_terminal),
  };
}

/** claimed ▶ queued, due at `availableAt`; the deadline index then finds it if its wake-up is lost. */
function retryLaterTransition(failure: FailureReport, availableAt: number, now: number): HolderTransition {
  return {
    name: 'retry_later',
    set: {
      state: WorkState.queued,
      errorCode: failure.errorCode,
      errorMessage: failure.message,
      availableAt,
      deadlineAt: availableAt,
      updatedAt: now,
    },
    remove: ['leaseOwner', 'leaseExpiresAt'],
    endsAttempt: { code: failure.errorCode, at: now },
    appliedIn: landedUnderMyFence(WorkState.queued),
  };
}

/** claimed ▶ unknown or quarantined: an outcome nobody can confirm, or input nobody can interpret. */
function parkTransition(
  claim: Claim,
  state: typeof WorkState.unknown | typeof WorkState.quarantined,
  failure: FailureReport,
  now: number,
): HolderTransition {
  return {
    name: `park_${state}`,
    set: {
      state,
      errorCode: failure.errorCode,
      errorMessage: failure.message,
      finishedAt: now,
      updatedAt: now,
      ...parkedAttributes(claim.identity, state, now),
    },
    remove: LEASE_ATTRIBUTES,
    endsAttempt: { code: failure.errorCode, at: now },
    appliedIn: landedUnderMyFence(state),
  };
}

/** Records a durable step as done under my fence, so a later holder skips it and reuses its result. */
function stepTransition(stepName: string, result: unknown, claim: Claim, now: number): HolderTransition {
  return {
    name: 'step',
    set: { updatedAt: now },
    raw: (x) => [`${x.name('steps')}.${x.segment(stepName)} = ${x.value({ fence: claim.fence, at: now, result })}`],
    appliedIn: (item) => item.steps?.[stepName]?.fence === claim.fence,
  };
}

/** Who did an operator action, and why (stored in the audit trail). */
interface OperatorAction {
  actor: string;
  reason: string;
}

/** The attempt-history change of an operator transition: a running attempt (claimed) is closed with `code`. */
function closeRunningAttempt(item: WorkItem, now: number, code: string): Record<string, unknown> {
  if (item.state !== WorkState.claimed) return {};
  return { [ATTEMPT_HISTORY_ATTRIBUTE]: closeAttempts(item.ah, item.fence, now, code) };
}

/** queued | claimed | unknown ▶ cancelled, fence + 1: the running worker's next fenced write is rejected. */
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
    audit: { actor: action.actor, reason: action.reason, action: `resolve_${to}` },
  };
}

/**
 * unknown | failed_terminal | quarantined ▶ queued with a fresh attempt budget; identity and fence continue.
 * The effect mark stays (the next claim of a class C job reconciles first) unless the operator states that
 * the effect did not happen: that statement clears it and is kept in the audit entry.
 */
function requeueTransition(
  item: WorkItem,
  action: OperatorAction & { statement?: OperatorStatement; auditAction?: string },
  deadlineShard: string,
  now: number,
): OperatorTransition {
  const { statement, auditAction, ...who } = action;
  return {
    expected: { state: item.state, fence: item.fence },
    to: WorkState.queued,
    set: { availableAt: now, deadlineShard, deadlineAt: now },
    remove: [
      'leaseOwner',
      'leaseExpiresAt',
      'finishedAt',
      'outcomeCode',
      ...PARKED_ATTRIBUTES,
      ...(statement === 'effect_did_not_happen' ? ['effectMayHaveHappened'] : []),
    ],
    audit: { ...who, action: auditAction ?? 'retry', ...(statement ? { statement } : {}) },
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
  completeTransition,
  type FailureReport,
  failTerminalTransition,
  heartbeatTransition,
  type JobOutcome,
  type OperatorAction,
  parkTransition,
  parseJobOutcome,
  raiseFenceTransition,
  requeueTransition,
  resolveTransition,
  retryLaterTransition,
  stepTransition,
  sweepToUnknownTransition,
};
