import type { JobIdentity } from '../../identity.js';
import type { StoreConnection } from '../driver/connection.js';
import type { HolderTransition } from '../work-items/requests.js';
import type { FailureReport } from '../work-items/transitions.js';
import type { Claim } from '../work-items/work-item.js';
import type { BudgetRate, BudgetRef } from './budget-requests.js';
import { forgetBudgetWait, recordBudgetWait } from './budget-waiters.js';
import { type TokenVerdict, takeToken } from './budgets.js';
import { awaitBudgetTransition, awaitSlotTransition } from './flow-transitions.js';
import { SlotStore } from './slots.js';

/** The holder's fenced write of a transition (WorkItemStore's): OwnershipLostError when superseded. */
type ApplyFenced = (claim: Claim, transition: HolderTransition) => Promise<void>;

/**
 * Flow control's store facet (WorkItemStore.flow(), bundled only with `flowControl`): concurrency slots, provider budgets and the
 * holder's waits for them. A bundle built without flow control (FLOW_CONTROL_CONSTANT `'omitted'`) does not hold it.
 */
class FlowControlStore {
  /** Concurrency slots and their waiters (slots.ts). */
  readonly slots: SlotStore;

  constructor(
    private readonly db: StoreConnection,
    private readonly applyFenced: ApplyFenced,
  ) {
    this.slots = new SlotStore(db);
  }

  /**
   * Takes one token from a provider budget shared by every worker: one conditional write decides; the verdict says
   * granted, or how long until the next token.
   */
  takeToken(ref: BudgetRef, rate: BudgetRate): Promise<TokenVerdict> {
    return takeToken(this.db, ref, rate);
  }

  /**
   * Records a job (its row queued) as waiting on a budget for `waitMs`, so operators count it (budget-waiters.ts):
   * one UpdateItem. Returns when its wait began (kept across its re-waits).
   */
  recordBudgetWait(wait: { ref: BudgetRef; identity: JobIdentity; jobType: string; waitMs: number }): Promise<number> {
    return recordBudgetWait(this.db, wait);
  }

  /** Forgets a job's wait on a budget once granted (one DeleteItem): when its wait began, undefined if none recorded. */
  forgetBudgetWait(ref: BudgetRef, identity: JobIdentity): Promise<number | undefined> {
    return forgetBudgetWait(this.db, ref, identity);
  }

  /**
   * claimed ▶ queued for `waitMs`, not an attempt (awaitSlotTransition): a concurrency limit is full. The wait's start
   * is kept from the claim (or now, for a first wait) and returned. OwnershipLostError when superseded.
   */
  async awaitSlot(claim: Claim, failure: FailureReport, waitMs: number): Promise<number> {
    const now = this.db.clock.now();
    const since = claim.waitingSince ?? now;
    await this.applyFenced(claim, awaitSlotTransition(claim, failure, now + waitMs, since, now));
    return since;
  }

  /**
   * claimed ▶ queued for `waitMs`, the attempt given back (awaitBudgetTransition): the job's provider budget is
   * empty. OwnershipLostError when superseded.
   */
  async awaitBudget(claim: Claim, failure: FailureReport, waitMs: number): Promise<void> {
    const now = this.db.clock.now();
    await this.applyFenced(claim, awaitBudgetTransition(claim, failure, now + waitMs, now));
  }
}

export { type ApplyFenced, FlowControlStore };
