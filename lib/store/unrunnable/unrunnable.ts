import { sendConditional } from '../driver/conditional-write.js';
import type { StoreConnection } from '../driver/connection.js';
import { buildOperatorUpdate } from '../operator/operator-requests.js';
import { identityOfItem, isWorkItem } from '../work-items/work-item.js';
import {
  buildRefusalNote,
  parkUnrunnableTransition,
  pastCeiling,
  type UnrunnableRefusal,
} from './unrunnable-requests.js';

/** What a refusal did: nothing (the row is not one this worker cannot run), noted on the row, or parked it. */
type RefusalOutcome = 'not_applicable' | 'noted' | 'parked';

/**
 * Rows no deployed worker can run: a worker that refuses a wake-up for a version or job type it does not run notes
 * it on the queued row (one conditional write), and the refusal that reaches the ceiling parks the row quarantined
 * (a second, conditional on what the note returned). Never touches a row it could run, a claimed or finished one.
 */
class UnrunnableRows {
  constructor(private readonly db: StoreConnection) {}

  /** Notes a refusal, and parks the row once past UNRUNNABLE_CEILING. Infrastructure errors propagate. */
  async refused(refusal: UnrunnableRefusal): Promise<RefusalOutcome> {
    const { client, table, clock } = this.db;
    const now = clock.now();
    const noted = await sendConditional(client, {
      kind: 'update',
      ...buildRefusalNote(table.tableName, refusal, now),
    });
    if (!noted.ok || !isWorkItem(noted.attributes)) return 'not_applicable';
    const item = noted.attributes;
    if (!pastCeiling(item, now)) return 'noted';
    const transition = parkUnrunnableTransition(item, refusal, now);
    const park = buildOperatorUpdate(table, identityOfItem(item), transition, now);
    const parked = await sendConditional(client, { kind: 'update', ...park });
    return parked.ok ? 'parked' : 'noted';
  }
}

export { type RefusalOutcome, UnrunnableRows };
