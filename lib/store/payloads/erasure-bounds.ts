import type { Clock } from '../../clock.js';
import { mapBounded } from '../../internal/bounded-parallel.js';
import type { Key } from '../driver/connection.js';

/** Erase writes in flight at once. */
const ERASES_IN_FLIGHT = 10;

/**
 * What one erasure has written so far: payload bodies erased, work rows whose text was removed, shadow rows erased,
 * quarantine records whose ids were removed.
 */
interface ErasureProgress {
  deleted: number;
  cleared: number;
  /** Shadow rows whose executions (hashes, times) became tombstones. */
  shadowCleared?: number;
  /** Quarantine records whose raw tenant and operation ids were removed. */
  quarantineCleared?: number;
}

/** Writes one erasure has made (bodies and rows together are bounded by `max`). */
function written(progress: ErasureProgress): number {
  return progress.deleted + progress.cleared + (progress.shadowCleared ?? 0) + (progress.quarantineCleared ?? 0);
}

/** What one erasure may do and where it reports: at most `max` writes, each counted in `progress` as it goes. */
interface ErasureBounds {
  max: number;
  progress: ErasureProgress;
  /** Stamps `erasedAt`. */
  clock: Clock;
}

/** Whose data an erasure reaches: every row of a tenant, or the rows of one of its operations only. */
interface ErasureScope {
  tenantId: string;
  operationId?: string;
}

/**
 * The key condition of an erasure's Query on one partition key: every row of the kind (`prefix`), or, for one
 * operation, exactly its row (an equality, never `begins_with`: `op-1` must not reach `op-10`). Pure.
 */
function erasureKeyCondition(
  partitionKey: string,
  prefix: string,
  operationId: string | undefined,
): { KeyConditionExpression: string; values: Record<string, string> } {
  if (operationId === undefined)
    return {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      values: { ':pk': partitionKey, ':prefix': prefix },
    };
  return {
    KeyConditionExpression: '#pk = :pk AND #sk = :prefix',
    values: { ':pk': partitionKey, ':prefix': `${prefix}${operationId}` },
  };
}

/** One page of rows still holding something to erase, and the cursor after it. */
interface ErasurePage<Row> {
  rows: Row[];
  next?: Key;
}

/**
 * The bounded erase loop every erasure shares: reads pages (`readPage` is told how many writes remain), erases each
 * row (`eraseRow` counts its own successful write in `progress`) until `max` writes were made; true when the pages
 * ran out. A page cut short by `max` is read again by the next call (rows already erased no longer match).
 */
async function erasePages<Row>(
  bounds: ErasureBounds,
  readPage: (startKey: Key | undefined, remaining: number) => Promise<ErasurePage<Row>>,
  eraseRow: (row: Row, now: number) => Promise<void>,
): Promise<boolean> {
  let startKey: Key | undefined;
  while (written(bounds.progress) < bounds.max) {
    const remaining = bounds.max - written(bounds.progress);
    const page = await readPage(startKey, remaining);
    const rows = page.rows.slice(0, remaining);
    const now = bounds.clock.now();
    await mapBounded(rows, ERASES_IN_FLIGHT, (row) => eraseRow(row, now));
    if (rows.length < page.rows.length) return false;
    startKey = page.next;
    if (!startKey) return true;
  }
  return false;
}

export {
  type ErasureBounds,
  type ErasurePage,
  type ErasureProgress,
  type ErasureScope,
  erasePages,
  erasureKeyCondition,
  written,
};
