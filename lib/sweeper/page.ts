import { mapBounded } from '../internal/bounded-parallel.js';
import { sendWakeSignals } from '../messaging/wake.js';
import { WorkState } from '../states.js';
import type { SweeperStore } from '../store/index.js';
import { expireApprovalTransition, isWorkItem, sweepToUnknownTransition, type WorkItem } from '../store/index.js';
import type { SweepOptions, SweepSummary } from './types.js';

/** The settings of a sweep run that decide what happens to one page of due index entries. */
interface PageSettings {
  dueGraceMs: number;
  resignalIntervalMs: number;
  concurrency: number;
}

type Decision = 'unknown' | 'resignal' | 'expire' | 'skip';

/**
 * Classifies an index entry. A claimed entry past its index deadline may still hold a lease that heartbeats
 * extended (the index does not carry `leaseExpiresAt`): the write that follows checks the real lease inside
 * its condition, and a live lease moves the deadline instead. A job awaiting approval is due at its approval expiry.
 */
function decide(item: Record<string, unknown>, now: number, dueGraceMs: number): Decision {
  if (!isWorkItem(item)) return 'skip';
  // Its index deadline is its approval expiry: the page only holds it once that passed (the write checks again).
  if (item.state === WorkState.awaiting_approval) return 'expire';
  if (item.state === WorkState.claimed) return item.attempts >= item.maxAttempts ? 'unknown' : 'resignal';
  if (item.state === WorkState.queued) {
    const dueAt = item.availableAt ?? item.deadlineAt ?? now;
    return dueAt + dueGraceMs < now ? 'resignal' : 'skip';
  }
  return 'skip';
}

/** Applies the decisions of one page: conditional writes first, then wake-ups for the writes that won. */
async function handlePage(
  items: Record<string, unknown>[],
  now: number,
  settings: PageSettings,
  summary: SweepSummary,
  deps: Pick<SweepOptions, 'store' | 'sqs' | 'queueUrl'>,
): Promise<void> {
  const { store } = deps;
  const outcomes = await mapBounded(items, settings.concurrency, async (item) => {
    const decision = decide(item, now, settings.dueGraceMs);
    if (decision === 'skip') return { decision, won: false };
    const observed = item as unknown as WorkItem;
    if (decision === 'expire') {
      // One conditional write: still awaiting_approval at the fence the index showed, and the expiry passed.
      const result = await store.applyOperator(observed, expireApprovalTransition(observed, now));
      return { decision, won: result.ok };
    }
    if (decision === 'unknown') {
      const result = await store.applyOperator(observed, sweepToUnknownTransition(observed, now));
      if (result.ok) return { decision, won: true, item: observed };
      const current = result.current as Record<string, unknown> | undefined;
      return { decision, won: false, advanced: await advanceLiveLease(store, observed, current, now) };
    }
    const result = await store.deadlines.resignal(observed, now, now + settings.resignalIntervalMs);
    if (result.ok) return { decision, won: true, item: result.item };
    return { decision, won: false, advanced: await advanceLiveLease(store, observed, result.current, now) };
  });
  const toWake: WorkItem[] = [];
  for (const outcome of outcomes) {
    if (outcome.decision === 'skip') summary.skipped += 1;
    else if (outcome.advanced) summary.deadlinesAdvanced += 1;
    else if (!outcome.won) summary.lostRaces += 1;
    else if (outcome.decision === 'unknown') summary.sweptToUnknown += 1;
    else if (outcome.decision === 'expire') summary.approvalsExpired += 1;
    else if (outcome.item) toWake.push(outcome.item);
  }
  if (toWake.length === 0) return;
  const report = await sendWakeSignals(deps.sqs, deps.queueUrl, toWake);
  summary.resignalled += report.sent;
  summary.resignalFailures += report.failed;
  if (report.lastError) summary.resignalError = report.lastError;
}

/**
 * The real lease expiry when `current` is the claim the sweeper observed (same fence, same index deadline)
 * and heartbeats kept its lease alive; undefined otherwise.
 */
function liveLeaseExpiry(
  current: Record<string, unknown> | undefined,
  observed: Pick<WorkItem, 'fence' | 'deadlineAt'>,
  now: number,
): number | undefined {
  if (current === undefined || current.state !== WorkState.claimed || current.fence !== observed.fence) return;
  if (current.deadlineAt !== observed.deadlineAt) return;
  const lease = current.leaseExpiresAt;
  return typeof lease === 'number' && lease >= now ? lease : undefined;
}

/**
 * After a sweeper write found the lease alive (heartbeats extended it past the index deadline), moves the
 * deadline up to the real expiry, conditional on the observed state, fence and deadline. False when the item
 * is not that case or changed again (a lost race, counted by the caller).
 */
async function advanceLiveLease(
  store: SweeperStore,
  observed: WorkItem,
  current: Record<string, unknown> | undefined,
  now: number,
): Promise<boolean> {
  const leaseExpiresAt = liveLeaseExpiry(current, observed, now);
  if (leaseExpiresAt === undefined) return false;
  return store.deadlines.advance(observed, leaseExpiresAt);
}

export { handlePage, liveLeaseExpiry, type PageSettings };
