import type { Clock } from '../clock.js';

/** What one erasure has written so far: payload bodies erased, work rows whose text was removed, shadow rows erased. */
interface ErasureProgress {
  deleted: number;
  cleared: number;
  /** Shadow rows whose executions (hashes, times) became tombstones. */
  shadowCleared?: number;
}

/** Writes one erasure has made (bodies and rows together are bounded by `max`). */
function written(progress: ErasureProgress): number {
  return progress.deleted + progress.cleared + (progress.shadowCleared ?? 0);
}

/** What one erasure may do and where it reports: at most `max` writes, each counted in `progress` as it goes. */
interface ErasureBounds {
  max: number;
  progress: ErasureProgress;
  /** Stamps `erasedAt`. */
  clock: Clock;
}

export { type ErasureBounds, type ErasureProgress, written };
