import type { AbortCheck } from './attempt-abort.js';
import type { LeaseKeeper } from './lease-keeper.js';

/** What the guard consults: the attempt's lease keeper and its abort switch. */
interface LeaseGuardDependencies {
  keeper: Pick<LeaseKeeper, 'doubt'>;
  abort: AbortCheck & { abort(reason: unknown): void };
}

/**
 * THE check before any new effect of an attempt starts: ctx.records, ctx.transactions and ctx.step call it
 * first, so nothing is sent and no step body runs once the attempt is in lease doubt (LeaseInDoubtError, and
 * the attempt is aborted with it) or has lost its fence (the abort reason is thrown).
 */
function createLeaseGuard(deps: LeaseGuardDependencies): () => void {
  return () => {
    const doubt = deps.keeper.doubt();
    if (doubt && !deps.abort.aborted) deps.abort.abort(doubt);
    deps.abort.throwIfAborted();
  };
}

export { createLeaseGuard, type LeaseGuardDependencies };
