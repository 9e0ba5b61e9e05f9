import { isLeasefenceError, OwnershipLostError } from '../errors.js';
import { INVALID_KEY, limitsOf, recheckMsOf } from '../flow-control/concurrency-limits.js';
import type { Priority } from '../flow-control/priorities.js';
import type { AnyJobDefinition } from '../job-definition.js';
import type { RetryWaker } from '../messaging/retry-wake.js';
import type { WakeSubject } from '../messaging/wake-envelope.js';
import { MetricName } from '../metric-names.js';
import { type Claim, CONCURRENCY_WAIT, type HeldSlot, type SlotStore, type WorkItemStore } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';
import { wakeSubjectOf } from './execute-job.js';

/*
 * The worker's side of concurrency limits (issue #42), imported only by a worker that runs a job type declaring
 * them (bundled only with `flowControl`, lib/config.ts FLOW_CONTROL_CONSTANT): no limit declared, nothing of this runs.
 */

/** What slot handling needs from the runtime. */
interface SlotDependencies {
  readonly store: WorkItemStore;
  readonly telemetry: Telemetry;
  /**
   * Sends wake-ups to the urgent lane (a freed slot's waiter, now; a waiting job's re-check, after its delay); absent:
   * the sweeper.
   */
  readonly retryWaker?: RetryWaker;
  /** The bulk lane's waker (a bulk queue is configured): wake-ups of jobs that travel in the bulk lane go there. */
  readonly bulkRetryWaker?: RetryWaker;
  /** The lane of the job taking slots (where its own re-check goes, and what its waiter record keeps). */
  readonly lane: Priority;
}

/** The slots an attempt holds: renewed with its lease (false: one was re-granted), released when it ends. */
interface SlotHold {
  renew(claim: Claim): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Whether the claimed job may run: `run` with the slots it holds; else why not, with its row already written:
 * `concurrency_wait` (queued again, not an attempt), `concurrency_key_invalid` (quarantined: the per-key function
 * threw or named no key), `ownership_lost` (superseded before the wait was written: nothing held).
 */
type SlotDecision = { run: true; hold: SlotHold } | { run: false; reason: string };

/**
 * Takes one slot of every limit the job type declares, right after the claim and under its lease; a full limit
 * puts the row back to queued (awaitSlot: attempt and effect mark given back), records the job as that limit's
 * waiter and schedules its re-check after the limit's bounded delay. Never fails the job for a full limit.
 */
async function takeSlots(
  deps: SlotDependencies,
  definition: AnyJobDefinition,
  claim: Claim,
  payload: unknown,
): Promise<SlotDecision> {
  const limits = definition.flow?.concurrency;
  if (limits === undefined) return { run: true, hold: { renew: async () => true, release: async () => {} } };
  const scopes = limitsOf(limits, claim.identity, payload);
  if (scopes === INVALID_KEY) {
    const message = 'the per-key concurrency function threw or returned no key of 1 to 256 characters';
    await deps.store.quarantine(claim, { errorCode: INVALID_KEY, message });
    deps.telemetry.count(MetricName.Quarantined, 1, claim.jobType);
    return { run: false, reason: INVALID_KEY };
  }
  const { slots } = await deps.store.flow();
  const grant = await slots.acquire(claim, scopes, claim.leaseExpiresAt);
  if (grant.granted) {
    const regranted = grant.held.filter((slot) => slot.regranted).length;
    if (regranted > 0) deps.telemetry.count(MetricName.ConcurrencySlotRegranted, regranted, claim.jobType);
    if (claim.waitingSince !== undefined) {
      waited(deps, claim.waitingSince);
      await slots.forgetWaiter(claim, scopes, claim.waitingSince);
    }
    return { run: true, hold: holdOf(deps, slots, claim, grant.held) };
  }
  const waitMs = recheckMsOf(limits);
  const failure = {
    errorCode: CONCURRENCY_WAIT,
    message: `the ${grant.full.scope.kind} concurrency limit (${grant.full.limit}) is full: queued, not an attempt`,
  };
  let since: number;
  try {
    since = await (await deps.store.flow()).awaitSlot(claim, failure, waitMs);
  } catch (error) {
    if (isLeasefenceError(error, OwnershipLostError)) return { run: false, reason: 'ownership_lost' };
    throw error;
  }
  deps.telemetry.count(MetricName.ConcurrencyWaits, 1, claim.jobType);
  waited(deps, since);
  const woken = await slots.wait(grant.partition, grant.full.limit, claim, { since, lane: deps.lane });
  if (woken) await wake(deps, woken, 0, woken.lane);
  // The bounded delay: without a freed slot's wake-up the job looks again then (the sweeper is the backstop).
  await wake(deps, wakeSubjectOf(claim), waitMs, deps.lane);
  return { run: false, reason: CONCURRENCY_WAIT };
}

/** The hold of granted slots: renewal follows the job's lease; release frees them and wakes one waiter of each. */
function holdOf(deps: SlotDependencies, slots: SlotStore, claim: Claim, held: readonly HeldSlot[]): SlotHold {
  return {
    renew: (renewed) => slots.renew(held, renewed, renewed.leaseExpiresAt),
    release: async () => {
      try {
        await slots.release(held, claim.claimId);
        for (const slot of held) {
          const woken = await slots.wakeOne(slot.key.pk);
          if (woken) await wake(deps, woken, 0, woken.lane);
        }
      } catch (error) {
        // The slot frees when its lease expires and the waiters re-check after their delay: nothing is lost.
        deps.telemetry.warn('concurrency slot not released: it frees when the lease expires', {
          identity: claim.identity,
          jobType: claim.jobType,
          error,
        });
      }
    },
  };
}

function waited(deps: SlotDependencies, since: number): void {
  deps.telemetry.gauge(MetricName.ConcurrencyWaitSeconds, Math.max(0, deps.store.now() - since) / 1000, 'Seconds');
}

/** A wake-up in the job's own lane: the bulk queue for a bulk job (when there is one), else the urgent lane. */
async function wake(
  deps: SlotDependencies,
  subject: WakeSubject,
  delayMs: number,
  lane: Priority | undefined,
): Promise<void> {
  const waker = (lane === 'bulk' ? deps.bulkRetryWaker : undefined) ?? deps.retryWaker;
  await waker?.(subject, delayMs);
}

export { type SlotDecision, type SlotDependencies, type SlotHold, takeSlots };
