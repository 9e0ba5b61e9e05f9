import type { HolderTransition } from '../work-items/requests.js';
import { awaitPayloadTransition, type FailureReport, retryLaterTransition } from '../work-items/transitions.js';
import type { Claim } from '../work-items/work-item.js';

// The holder transitions of flow control (a job waiting for a slot or a budget), loaded by WorkItemStore on first
// use and left out of every bundle built without flow control (FLOW_CONTROL_CONSTANT): no other function runs them.

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

export { awaitBudgetTransition, awaitSlotTransition, WAITING_SINCE_ATTRIBUTE };
