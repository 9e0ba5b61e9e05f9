import { Deadlines } from '../deadlines/deadlines.js';
import { sendConditional } from '../driver/conditional-write.js';
import { Maintenance } from '../maintenance/maintenance.js';
import { ParkedReads } from '../parked/parked-reads.js';
import { WorkItemStore, type WorkItemStoreOptions } from '../work-item-store.js';
import { identityOfItem, isWorkItem, type WorkItem } from '../work-items/work-item.js';
import { buildOperatorUpdate, type OperatorTransition } from './operator-requests.js';
import { operatorApplied } from './read-back.js';

/** An operator transition's result: the committed item, or the item as it stands when the write lost a race. */
type OperatorOutcome = { ok: true; item: WorkItem } | { ok: false; current: WorkItem | undefined };

/**
 * The sweeper's store: the worker's core (WorkItemStore) on the same connection, plus what a sweep reads and writes:
 * `deadlines`, `parked`, `maintenance` and applyOperator (a transition on a row read from an index). OperatorStore
 * extends it with the admin's and the tools' facets, which the sweeper's bundle therefore does not hold.
 */
class SweeperStore extends WorkItemStore {
  /** The deadline index: due pages, active listings and counts, deadline moves (sweeper, admin). */
  readonly deadlines: Deadlines;
  /** The parked indexes: oldest parked time, counts, listing pages (sweeper, admin). */
  readonly parked: ParkedReads;
  /** Sweeper cursor, fence scan, payload erasure, health probe. */
  readonly maintenance: Maintenance;

  constructor(options: WorkItemStoreOptions) {
    super(options);
    this.deadlines = new Deadlines(this.db);
    this.parked = new ParkedReads(this.db);
    this.maintenance = new Maintenance(this.db);
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
}

export { type OperatorOutcome, SweeperStore };
