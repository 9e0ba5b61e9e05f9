import type { LeaseKeeper } from './lease-keeper.js';

/** What the guard consults: the attempt's lease keeper, its abort signal, and how to abort it. */
interface LeaseGuardDependencies {
  keeper: Pick<LeaseKeeper, 'doubt'>;
  signal: AbortSignal;
  abort: (reason: unknown) => void;
}

/**
 * THE check before any new effect of an attempt starts: ctx.records, ctx.transactions and ctx.step call it
 * first, so nothing is sent and no step body runs once the attempt is in lease doubt (LeaseInDoubtError, and
 * the signal is aborted with it) or has lost its fence (the signal's reason is thrown).
 */
function createLeaseGuard(deps: LeaseGuardDependencies): () => void {
  return () => {
    const doubt = deps.keeper.doubt();
    if (doubt && !deps.signal.aborted) deps.abort(doubt);
    deps.signal.throwIfAborted();
  };
}

export { createLeaseGuard, type LeaseGuardDependencies };
