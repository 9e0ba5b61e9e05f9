import { LeaseInDoubtError } from '../errors.js';
import { MetricName } from '../metric-names.js';
import type { LogFields, Telemetry } from '../telemetry.js';
import type { AbortCheck } from './attempt-abort.js';
import type { LeaseKeeper } from './lease-keeper.js';

/** What the guard consults: the attempt's lease keeper and its abort switch, and where it counts refusals. */
interface LeaseGuardDependencies {
  keeper: Pick<LeaseKeeper, 'doubt'>;
  abort: AbortCheck & { abort(reason: unknown): void };
  /** Counts each refusal in lease doubt (`EffectRefusedInLeaseDoubt`) and logs it; silent when absent. */
  telemetry?: Telemetry;
  /** The attempt's job type: refusals are also counted under it (its alert route). */
  jobType?: string;
  /** The attempt's log fields (identity is hashed by the telemetry). */
  fields?: LogFields;
}

/** The guard itself: `effect` names what was about to start, for the log line (`provider.charge`, `records`). */
type LeaseGuard = (effect?: string) => void;

/**
 * THE check before any new effect of an attempt starts: ctx.records, ctx.transactions, ctx.step and the declared
 * effect methods of ctx.provider call it first, so nothing is sent, no step body runs and no provider effect
 * starts once the attempt is in lease doubt (LeaseInDoubtError, and the attempt is aborted with it) or has lost
 * its fence (the abort reason is thrown). Every refusal in lease doubt is counted as `EffectRefusedInLeaseDoubt`.
 */
function createLeaseGuard(deps: LeaseGuardDependencies): LeaseGuard {
  return (effect = 'an effect') => {
    const doubt = deps.keeper.doubt();
    if (doubt && !deps.abort.aborted) deps.abort.abort(doubt);
    try {
      deps.abort.throwIfAborted();
    } catch (reason) {
      if (reason instanceof LeaseInDoubtError) {
        deps.telemetry?.count(MetricName.EffectRefusedInLeaseDoubt, 1, deps.jobType);
        deps.telemetry?.warn('effect refused: the attempt is in lease doubt', { ...deps.fields, effect });
      }
      throw reason;
    }
  };
}

export { createLeaseGuard, type LeaseGuard, type LeaseGuardDependencies };
