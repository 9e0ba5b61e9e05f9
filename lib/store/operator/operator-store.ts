import { IllegalTransitionError, ItemNotFoundError } from '../../errors.js';
import { formatIdentity, type ValidIdentity } from '../../identity.js';
import type { WorkState } from '../../states.js';
import { Approvals } from '../approvals/approvals.js';
import { Deadlines } from '../deadlines/deadlines.js';
import { sendConditional } from '../driver/conditional-write.js';
import { Maintenance } from '../maintenance/maintenance.js';
import { ParkedReads } from '../parked/parked-reads.js';
import { TenantPartitions } from '../parked/tenant-partitions.js';
import { AuditLog } from '../records/audit.js';
import { PayloadReview } from '../review/payload-review.js';
import { ShadowClaims } from '../shadow/shadow-claims.js';
import { WorkItemStore, type WorkItemStoreOptions } from '../work-item-store.js';
import type { TransactItem } from '../work-items/requests.js';
import { identityOfItem, isWorkItem, type WorkItem } from '../work-items/work-item.js';
import { buildOperatorUpdate, type OperatorTransition, operatorFence } from './operator-requests.js';
import { cancelTransition, type OperatorAction } from './operator-transitions.js';
import { CANCELLABLE_STATES, operatorApplied } from './read-back.js';
import { commitCancelWithStamps, stampEach } from './stamped-cancel.js';

/** An operator transition's result: the committed item, or the item as it stands when the write lost a race. */
type OperatorOutcome = { ok: true; item: WorkItem } | { ok: false; current: WorkItem | undefined };

/**
 * The store of the sweeper, the admin API, the CLI, the console and the local stack: the worker's core
 * (WorkItemStore) on the same connection, plus the operator transitions (cancel, operate, applyOperator) and the
 * reads and writes grouped by what they read: `deadlines`, `parked`, `tenants`, `audit`, `maintenance`, `shadow`,
 * `approvals`, `review`. Only these functions import it, so the worker's bundle holds none of these facets.
 */
class OperatorStore extends WorkItemStore {
  /** The deadline index: due pages, active listings and counts, deadline moves (sweeper, admin). */
  readonly deadlines: Deadlines;
  /** The parked indexes: oldest parked time, counts, listing pages (sweeper, admin). */
  readonly parked: ParkedReads;
  /** One tenant's partition keys: listing pages and a tally by state (admin). */
  readonly tenants: TenantPartitions;
  /** Audit records of admin actions that concern no single item. */
  readonly audit: AuditLog;
  /** Sweeper cursor, fence scan, payload erasure, health probe. */
  readonly maintenance: Maintenance;
  /** Shadow mode: what an existing consumer ran, one row per identity beside its work item (never the work item). */
  readonly shadow: ShadowClaims;
  /** The approval records, and approve and reject a job awaiting approval, each one conditional write (admin). */
  override readonly approvals: Approvals;
  /** An approver's read of the payload body a job awaiting approval binds (admin). */
  readonly review: PayloadReview;

  constructor(options: WorkItemStoreOptions) {
    super(options);
    this.deadlines = new Deadlines(this.db);
    this.parked = new ParkedReads(this.db);
    this.tenants = new TenantPartitions(this.db);
    this.audit = new AuditLog(this.db);
    this.maintenance = new Maintenance(this.db);
    this.shadow = new ShadowClaims(this.db);
    this.approvals = new Approvals(this.db);
    this.review = new PayloadReview(this.db);
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

  /** Applies an operator transition to an item already observed (e.g. from an index); never throws on a lost race. */
  async applyOperator(
    observed: Pick<WorkItem, 'tenantId' | 'operationId'>,
    transition: OperatorTransition,
  ): Promise<OperatorOutcome> {
    const now = this.clock.now();
    const request = buildOperatorUpdate(this.table, identityOfItem(observed), transition, now);
    const outcome = await sendConditional(this.client, { kind: 'update', ...request });
    if (outcome.ok) return { ok: true, item: outcome.attributes as unknown as WorkItem };
    const current = isWorkItem(outcome.current) ? outcome.current : undefined;
    // A lost response retried by the SDK: the item shows this very write (target state, fence + 1, my timestamp).
    if (current && operatorApplied(current, transition, now)) return { ok: true, item: current };
    return { ok: false, current };
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
