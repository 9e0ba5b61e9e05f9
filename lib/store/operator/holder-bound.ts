import type { ExpressionBuilder } from '../driver/expressions.js';
import type { WorkItem } from '../work-items/work-item.js';

/** Lambda's ceiling on one invocation (15 minutes): the bound when a deployment names none. */
const DEFAULT_WORKER_MAX_RUN_MS = 900_000;

/**
 * From when no holder of the row's last claim can still be running: its claim time (`claimedAt`; a row written
 * before that attribute existed: `updatedAt`, which is never earlier) plus the worker's longest run.
 */
function holdersGoneAt(item: Pick<WorkItem, 'claimedAt' | 'updatedAt'>, maxRunMs: number): number {
  return (item.claimedAt ?? item.updatedAt) + maxRunMs;
}

/**
 * The condition, inside the write, that no holder of the row's last claim can still be running at `now`: the
 * row's claim time (or, without one, its last write) is at least `maxRunMs` before `now`. Checked by the engine
 * against the row as it is, so a claim made after the caller read the row makes the write fail.
 */
function noHolderRunning(maxRunMs: number, now: number): (x: ExpressionBuilder) => string {
  return (x) => {
    const cutoff = x.value(now - maxRunMs);
    const claimedAt = x.name('claimedAt');
    return `(${claimedAt} <= ${cutoff} OR (attribute_not_exists(${claimedAt}) AND ${x.name('updatedAt')} <= ${cutoff}))`;
  };
}

export { DEFAULT_WORKER_MAX_RUN_MS, holdersGoneAt, noHolderRunning };
