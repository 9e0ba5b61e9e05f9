import type * as z from 'zod/mini';
import { parseInput } from '../../internal/validation.js';
import { capMessage, jobOutcomeSchema } from '../../rules.js';
import { WorkState } from '../../states.js';
import { checkPlainOutcome } from './outcome-check.js';
import { type HolderTransition, LEASE_ATTRIBUTES, parkedAttributes } from './requests.js';
import type { Claim, WorkItem } from './work-item.js';

/**
 * The holder's transitions of the work-item state machine, each applied through the one fenced write
 * (buildFencedUpdate). Operator and sweeper transitions are in operator-transitions.ts.
 */

/** The item now shows `state` under the claim's own fence: only this claim's holder can have put it there. */
function landedUnderMyFence(state: WorkState) {
  return (item: WorkItem, claim: Claim) => item.state === state && item.fence === claim.fence;
}

/**
 * Renew the lease: a compare-and-swap of the holder's own lease token. The condition requires the
 * `leaseExpiresAt` this holder last wrote (`renewed`) and that it has not expired at `now`, so a renewal
 * delayed in the network can never move a newer lease back, nor extend a lease anyone else wrote. It can
 * still land after the lease lapsed when nothing touched the row meanwhile (DynamoDB conditions have no
 * server clock: `now` is the holder's, fixed when the request was built); it then gives that same holder
 * the lease it would have had on time, and the holder, in lease doubt since its local deadline, starts no
 * new effect: only a takeover waits longer; every write still carries the fence. Only unindexed attributes
 * change, so a heartbeat writes the row and no index (the deadline index keeps the claim's deadline; the
 * sweeper checks the real lease). A retried heartbeat whose first try committed is recognised as applied.
 */
function heartbeatTransition(renewed: number, leaseExpiresAt: number, now: number): HolderTransition {
  return {
    name: 'heartbeat',
    set: { leaseExpiresAt, updatedAt: now },
    condition: (x) => {
      const lease = x.name('leaseExpiresAt');
      return `${lease} = ${x.value(renewed)} AND ${lease} > ${x.value(now)}`;
    },
    appliedIn: (item, claim) =>
      item.state === WorkState.claimed && item.fence === claim.fence && (item.leaseExpiresAt ?? 0) >= leaseExpiresAt,
  };
}

/** Outcome of a successful job: a short code and a small JSON result (never the payload). */
interface JobOutcome {
  outcomeCode: string;
  result?: unknown;
}

const validOutcomeSchema = jobOutcomeSchema.brand<'ValidOutcome'>();

/** A job's outcome as checked where the job handed it over: the store records only these. */
type ValidOutcome = z.output<typeof validOutcomeSchema>;

/**
 * A job's outcome, validated where the job hands it over (its return value, a reconcile result, a
 * transaction's completion): InvalidInputError naming every bad field, nothing written.
 */
function parseJobOutcome(value: unknown, what = 'job outcome'): ValidOutcome {
  // The plain `{ outcomeCode }` in one pass (exactly as strict: outcome-check.ts), anything else by the schema.
  return (checkPlainOutcome(value) as ValidOutcome | undefined) ?? parseInput(validOutcomeSchema, value, what);
}

/** claimed ▶ succeeded; `successors` (operation ids, same tenant) are listed on the row when the completion enqueued some. */
function completeTransition(outcome: JobOutcome, now: number, successors?: readonly string[]): HolderTransition {
  return {
    name: 'complete',
    set: {
      state: WorkState.succeeded,
      outcomeCode: outcome.outcomeCode,
      result: outcome.result,
      finishedAt: now,
      updatedAt: now,
      ...(successors !== undefined && successors.length > 0 ? { successors: [...successors] } : {}),
    },
    remove: LEASE_ATTRIBUTES,
    endsAttempt: { code: outcome.outcomeCode, at: now },
    // My earlier send of this same completion, not a different outcome under my fence.
    appliedIn: (item, claim) =>
      landedUnderMyFence(WorkState.succeeded)(item, claim) && item.outcomeCode === outcome.outcomeCode,
  };
}

/** A failure with a code and a message safe to store (no payload data; cut to MAX_MESSAGE_CHARS when stored). */
interface FailureReport {
  errorCode: string;
  message?: string;
}

/**
 * The attributes a failure report sets on the row: its code, and its message capped once here (capMessage),
 * where every holder transition that records a failure takes it from.
 */
function failureAttributes(failure: FailureReport): { errorCode: string; errorMessage: string | undefined } {
  return {
    errorCode: failure.errorCode,
    errorMessage: failure.message === undefined ? undefined : capMessage(failure.message),
  };
}

/** claimed ▶ failed_terminal (parked for the owner). */
function failTerminalTransition(claim: Claim, failure: FailureReport, now: number): HolderTransition {
  return {
    name: 'fail_terminal',
    set: {
      state: WorkState.failed_terminal,
      ...failureAttributes(failure),
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
      ...failureAttributes(failure),
      availableAt,
      deadlineAt: availableAt,
      updatedAt: now,
    },
    remove: ['leaseOwner', 'leaseExpiresAt'],
    endsAttempt: { code: failure.errorCode, at: now },
    appliedIn: landedUnderMyFence(WorkState.queued),
  };
}

/**
 * claimed ▶ queued until `availableAt`, the attempt given back: the row's inline body is not stored yet (a
 * carried body is stored after its row; a crash between the two leaves the row without it), so nothing ran and
 * nothing could. The claim's fence stays raised; the row waits for its message's redelivery to store the body.
 */
function awaitPayloadTransition(
  claim: Claim,
  failure: FailureReport,
  availableAt: number,
  now: number,
): HolderTransition {
  const retry = retryLaterTransition(failure, availableAt, now);
  return { ...retry, name: 'await_payload', set: { ...retry.set, attempts: claim.attempt - 1 } };
}

/** Attribute of a row waiting for a concurrency slot: when it first found its limit full (kept across its waits). */
const WAITING_SINCE_ATTRIBUTE = 'flowWaitingSince';

/**
 * claimed ▶ queued until `availableAt`, not an attempt: a concurrency limit of the job type is full, so nothing ran.
 * The attempt is given back and the effect mark put back as it was before this claim (a class D job that never
 * started must not look as if it might have); the fence stays raised. `errorCode` says why it waits (not a failure).
 */
function awaitSlotTransition(
  claim: Claim,
  failure: FailureReport,
  availableAt: number,
  waitingSince: number,
  now: number,
): HolderTransition {
  const retry = retryLaterTransition(failure, availableAt, now);
  return {
    ...retry,
    name: 'await_slot',
    set: { ...retry.set, attempts: claim.attempt - 1, [WAITING_SINCE_ATTRIBUTE]: waitingSince },
    remove: [...(retry.remove ?? []), ...(claim.effectMayHaveHappened ? [] : ['effectMayHaveHappened'])],
  };
}

/**
 * claimed ▶ queued until `availableAt`, the attempt given back: the job's provider budget is empty (flow control), so
 * it waits before its call. The effect mark stays as the claim set it (a class C job reconciles first next time).
 */
function awaitBudgetTransition(
  claim: Claim,
  failure: FailureReport,
  availableAt: number,
  now: number,
): HolderTransition {
  return { ...awaitPayloadTransition(claim, failure, availableAt, now), name: 'await_budget' };
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
      ...failureAttributes(failure),
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

export {
  awaitBudgetTransition,
  awaitPayloadTransition,
  awaitSlotTransition,
  completeTransition,
  type FailureReport,
  failTerminalTransition,
  heartbeatTransition,
  type JobOutcome,
  parkTransition,
  parseJobOutcome,
  retryLaterTransition,
  stepTransition,
  type ValidOutcome,
  WAITING_SINCE_ATTRIBUTE,
};
