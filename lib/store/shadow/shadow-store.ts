import { WorkItemStore, type WorkItemStoreOptions } from '../work-item-store.js';
import { ShadowClaims } from './shadow-claims.js';

/**
 * The store of a consumer wrapped in shadow mode (lib/shadow): the worker's core plus the shadow claims, on one
 * connection; none of the operator facets. The rows it writes are the shadow rows beside each work item, never the item.
 */
class ShadowStore extends WorkItemStore {
  /** Shadow mode: what an existing consumer ran, one row per identity beside its work item (never the work item). */
  readonly shadow: ShadowClaims;

  constructor(options: WorkItemStoreOptions) {
    super(options);
    this.shadow = new ShadowClaims(this.db);
  }
}

export { ShadowStore };
