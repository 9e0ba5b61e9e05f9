import type { SweeperStore } from '../store/index.js';
import { sweep } from './sweeper.js';
import type { SweepCursor, SweepOptions, SweepSummary } from './types.js';

/** The cursor as stored in the sweeper's row, and the version it was read at (0 when there is no row). */
interface StoredSweepCursor {
  cursor: SweepCursor | undefined;
  version: number;
}

/**
 * Reads where the last run of any container ended (one consistent GetItem on the `#sweeper` row).
 * A missing or malformed row is a fresh start at shard 0; storage errors propagate.
 */
async function loadSweepCursor(store: SweeperStore): Promise<StoredSweepCursor> {
  const { nextShard, version } = await store.maintenance.loadSweepCursor();
  return { cursor: nextShard === undefined ? undefined : { shard: nextShard }, version };
}

/**
 * Stores where the next run starts, only if nobody stored another position since `seenVersion` was read
 * (a conditional write; the sweeper's reserved concurrency of 1 makes a clash rare). Returns false when
 * another run won: its position stands, nothing is lost (the index is the truth).
 */
function saveSweepCursor(store: SweeperStore, seenVersion: number, cursor: SweepCursor | undefined): Promise<boolean> {
  return store.maintenance.saveSweepCursor(seenVersion, cursor?.shard);
}

/** A run's summary and whether its cursor was stored. */
type StoredSweepSummary = SweepSummary & { cursorStored: boolean };

/**
 * One sweep that resumes where the last run of any container ended: load the stored cursor, sweep, store
 * the next one. A cold start no longer begins at shard 0, so under a backlog no shard waits more than a
 * bounded number of runs (see sweep). A failed run stores nothing: the next one starts where this one did.
 * @example
 * const summary = await sweepFromStoredCursor({ store, sqs, queueUrl });
 */
async function sweepFromStoredCursor(options: Omit<SweepOptions, 'cursor'>): Promise<StoredSweepSummary> {
  const stored = await loadSweepCursor(options.store);
  const summary = await sweep({ ...options, ...(stored.cursor ? { cursor: stored.cursor } : {}) });
  const cursorStored = await saveSweepCursor(options.store, stored.version, summary.cursor);
  return { ...summary, cursorStored };
}

export { loadSweepCursor, type StoredSweepCursor, type StoredSweepSummary, saveSweepCursor, sweepFromStoredCursor };
