import { WorkState } from '../../states.js';
import type { WorkItem } from '../work-items/work-item.js';
import { type OperatorTransition, operatorFence } from './operator-requests.js';

/**
 * How to read an item that came back from a failed operator condition: whether that write already landed (a
 * lost response retried by the SDK). Why a claim was refused is claimability's (beside the claim request).
 */

/** States an operator may cancel from. */
const CANCELLABLE_STATES: readonly WorkState[] = [
  WorkState.awaiting_approval,
  WorkState.queued,
  WorkState.claimed,
  WorkState.unknown,
];

/** True when `item` shows `transition` committed at `now` from the state and fence it expected. */
function operatorApplied(item: WorkItem, transition: OperatorTransition, now: number): boolean {
  if (item.state !== transition.to || item.fence !== operatorFence(transition) || item.updatedAt !== now) {
    return false;
  }
  if (!transition.audit) return true;
  const last = item.audit?.at(-1);
  return last?.at === now && last.actor === transition.audit.actor && last.action === transition.audit.action;
}

export { CANCELLABLE_STATES, operatorApplied };
