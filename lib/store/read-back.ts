import { FINISHED_STATES, WorkState } from '../states.js';
import { type OperatorTransition, operatorFence } from './operator-requests.js';
import type { WorkItem } from './work-item.js';

/**
 * How to read an item that came back from a failed condition: why a claim was refused, and whether an
 * operator write already landed (a lost response retried by the SDK).
 */

/** Why a claim did not happen; none of these is an error, each tells the caller what to do. */
type NotClaimableReason = 'missing' | 'finished' | 'leased' | 'exhausted' | 'not_due';

/** States an operator may cancel from. */
const CANCELLABLE_STATES: readonly WorkState[] = [WorkState.queued, WorkState.claimed, WorkState.unknown];

/** True when `item` shows `transition` committed at `now` from the state and fence it expected. */
function operatorApplied(item: WorkItem, transition: OperatorTransition, now: number): boolean {
  if (item.state !== transition.to || item.fence !== operatorFence(transition) || item.updatedAt !== now) {
    return false;
  }
  if (!transition.audit) return true;
  const last = item.audit?.at(-1);
  return last?.at === now && last.actor === transition.audit.actor && last.action === transition.audit.action;
}

/** Explains a failed claim from the item as read back. */
function notClaimableReason(item: WorkItem, now: number): NotClaimableReason {
  if (FINISHED_STATES.includes(item.state)) return 'finished';
  if (item.state === WorkState.claimed && (item.leaseExpiresAt ?? 0) >= now) return 'leased';
  if (item.attempts >= item.maxAttempts) return 'exhausted';
  return 'not_due';
}

export { CANCELLABLE_STATES, type NotClaimableReason, notClaimableReason, operatorApplied };
