import { IllegalTransitionError, ItemNotFoundError } from '../../errors.js';
import type { LimitScope } from '../../flow-control/concurrency-limits.js';
import { formatIdentity, type ValidIdentity } from '../../identity.js';
import type { WorkState } from '../../states.js';
import { Approvals } from '../approvals/approvals.js';
import type { BudgetState } from '../flow-control/budget-reads.js';
// The budget reads (a GetItem of the row, a Query of its waiters) are an operator's only: the admin function holds
// them in every bundle; taking tokens is the worker's, with flow control.
import { budgetWaiters, readBudget } from '../flow-control/budget-reads.js';
import type { BudgetRef } from '../flow-control/budget-requests.js';
import { type LimitUsage, limitUsage } from '../flow-control/slot-usage.js';
import { TenantPartitions } from '../parked/tenant-partitions.js';
import { PayloadErasure } from '../payloads/payload-erasure.js';
import { AuditLog } from '../records/audit.js';
import { PayloadReview } from '../review/payload-review.js';
import { ShadowClaims } from '../shadow/shadow-claims.js';
import type { WorkItemStoreOptions } from '../work-item-store.js';
import type { TransactItem } from '../work-items/requests.js';
import type { WorkItem } from '../work-items/work-item.js';
import { buildOperatorUpdate, type OperatorTransition, operatorFence } from './operator-requests.js';
import { cancelTransition, type OperatorAction } from './operator-transitions.js';
import { CANCELLABLE_STATES } from './read-back.js';
import { commitCancelWithStamps, stampEach } from './stamped-cancel.js';
import { type OperatorOutcome, SweeperStore } from './sweeper-store.js';

/**
 * The store of the admin API, the CLI, the console and the local stack: the sweeper's store (SweeperStore: the
 * worker's core, `deadlines`, `parked`, `maintenance`, applyOperator) on the same connection, plus the operator
 * transitions (cancel, operate) and the reads and writes grouped by what they read: `tenants`, `audit`, `shadow`,
 * `approvals` (with the decisions), `review`, `erasure`. Neither the worker's nor the sweeper's bundle holds these facets.
 */
class OperatorStore extends SweeperStore {
  /** One tenant's partition keys: listing pages and a tally by state (admin). */
  readonly tenants: TenantPartitions;
  /** Audit records of admin actions that concern no single item. */
  readonly audit: AuditLog;
  /** Shadow mode: what an existing consumer ran, one row per identity beside its work item (never the work item). */
  readonly shadow: ShadowClaims;
  /** The approval records, and approve and reject a job awaiting approval, each one conditional write (admin). */
  override readonly approvals: Approvals;
  /** An approver's read of the payload body a job awaiting approval binds (admin). */
  readonly review: PayloadReview;
  /** Erasure of a tenant's or one operation's stored data, bounded per call (admin). */
  readonly erasure: PayloadErasure;

  constructor(options: WorkItemStoreOptions) {
    super(options);
    this.tenants = new TenantPartitions(this.db);
    this.audit = new AuditLog(this.db);
    this.shadow = new ShadowClaims(this.db);
    this.approvals = new Approvals(this.db);
    this.review = new PayloadReview(this.db);
    this.erasure = new PayloadErasure(this.db);
  }

  /**
   * awaiting_approval | queued | claimed | unknown ▶ cancelled with fence + 1, audited. The running holder's next work-item write is
   * rejected. With `stampsFor` (lib/fenced's cancelStamps) the records the row names as owned are stamped with the
   * new fence: in the same transaction where the engine has transactions, else right after the cancel committed.
   */
  async cancel(
    identity: ValidIdentity,
    action: OperatorAction,
    stampsFor?: (item: WorkItem, fence: number) => readonly TransactItem[],
  ): Promise<WorkItem> {
    const item = await this.observe(identity, CANCELLABLE_STATES);
    const now = this.clock.now();
    const transition = cancelTransition(item, action, now);
    const stamps = stampsFor?.(item, operatorFence(transition)) ?? [];
    if (stamps.length === 0) return this.settle(identity, await this.applyOperator(item, transition));
    const request = buildOperatorUpdate(this.table, identity, transition, now);
    const together = await commitCancelWithStamps(this.client, request, stamps);
    if (together === 'committed') return (await this.get(identity)) ?? item;
    if (together === 'work_item_refused')
      return this.settle(identity, { ok: false, current: await this.get(identity) });
    const cancelled = this.settle(identity, await this.applyOperator(item, transition));
    await stampEach(this.client, stamps);
    return cancelled;
  }

  /**
   * Slots in use and jobs waiting for one concurrency limit of a job type (strongly consistent Queries of its
   * partition, never a Scan): readable where the slot store is not bundled (the admin function).
   */
  limitUsage(jobType: string, scope: LimitScope): Promise<LimitUsage> {
    return limitUsage(this.db, jobType, scope);
  }

  /**
   * A provider budget as its row stands now (strongly consistent; an operator's read, never a decision), or undefined
   * when no take wrote it yet.
   */
  async budget(ref: BudgetRef): Promise<BudgetState | undefined> {
    return readBudget(this.db, ref);
  }

  /**
   * Jobs recorded as waiting on a provider budget now and the oldest wait's start (strongly consistent Query of the
   * budget's waiter items, never a Scan; a job that ended otherwise stays counted until its item's TTL).
   */
  async budgetWaiters(ref: BudgetRef): Promise<{ waiting: number; oldestWaitingSince?: number }> {
    return budgetWaiters(this.db, ref);
  }

  /**
   * Reads the item, checks the transition is allowed from its state, then applies it conditional on the
   * state and fence it read (compare-and-swap inside the write). ItemNotFoundError if missing,
   * IllegalTransitionError if the state does not allow it or the item changed in between.
   */
  async operate(
    identity: ValidIdentity,
    allowedFrom: readonly WorkState[],
    makeTransition: (item: WorkItem) => OperatorTransition,
  ): Promise<WorkItem> {
    const item = await this.observe(identity, allowedFrom);
    return this.settle(identity, await this.applyOperator(item, makeTransition(item)));
  }

  /** The item an operator transition starts from: ItemNotFoundError, or IllegalTransitionError from another state. */
  private async observe(identity: ValidIdentity, allowedFrom: readonly WorkState[]): Promise<WorkItem> {
    const item = await this.get(identity);
    if (!item) throw new ItemNotFoundError(`no work item ${formatIdentity(identity)}`, { ...identity });
    if (!allowedFrom.includes(item.state)) {
      throw new IllegalTransitionError(
        `${formatIdentity(identity)} is ${item.state}; allowed only from ${allowedFrom.join(', ')}`,
        item,
      );
    }
    return item;
  }

  /** The committed item, or IllegalTransitionError when the item changed while the operation ran. */
  private settle(identity: ValidIdentity, outcome: OperatorOutcome): WorkItem {
    if (outcome.ok) return outcome.item;
    throw new IllegalTransitionError(
      `${formatIdentity(identity)} changed while the operation ran (now ${String(outcome.current?.state)}); read it again`,
      outcome.current,
    );
  }
}

export { OperatorStore };
