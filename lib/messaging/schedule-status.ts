import type { ValidIdentity } from '../identity.js';
import { occurrenceOf, type ScheduleDeclaration, scheduleTicks } from './schedule.js';

/**
 * How long after its time a tick may still arrive: the Scheduler target's maximum event age (its retries stop
 * there). A tick younger than this with no job is `pending`, older is `missed`.
 */
const TICK_MAX_AGE_SECONDS = 15 * 60;

/**
 * How many past ticks old enough to judge (past the retry window) `leasefence schedules`, the console and the
 * tick's own check look at by default; the younger ticks inside the window are always read too (ran or pending).
 */
const DEFAULT_LOOKBACK_TICKS = 5;

/**
 * What became of one expected tick: `ran` (its job exists, in `state`), `pending` (no job yet, still within the
 * retry window), `missed` (no job, past the window, while the schedule existed), `not_evaluated` (no job, and
 * nothing tells whether the schedule existed then: declare `start`).
 */
type TickStatus = 'ran' | 'pending' | 'missed' | 'not_evaluated';

/** One expected tick and what became of it. */
interface TickReport {
  readonly scheduledAt: number;
  readonly operationId: string;
  readonly status: TickStatus;
  readonly state?: string;
}

/**
 * A schedule's recent ticks, newest first, and its next one. `verdict` is `missed` when any tick was missed,
 * `not_evaluated` when some tick cannot be judged (and none was missed), else `ok`; never `ok` on a tick it
 * could not judge.
 */
interface ScheduleStatus {
  readonly name: string;
  readonly next?: number;
  readonly lastRun?: TickReport;
  readonly ticks: readonly TickReport[];
  readonly verdict: 'ok' | 'missed' | 'not_evaluated';
}

/** Reads an occurrence's row: its state, or undefined when there is none (a store read; errors propagate). */
type OccurrenceLookup = (identity: ValidIdentity) => Promise<{ state: string } | undefined>;

/** Whether a tick with no job may still arrive at `now` (it is inside the Scheduler's retry window). */
function withinRetryWindow(scheduledAt: number, now: number): boolean {
  return now - scheduledAt < TICK_MAX_AGE_SECONDS * 1000;
}

/**
 * The schedule's ticks at or before `now`, newest first, none before its declared start: every tick inside the
 * retry window, then `count` older ones (the ones a verdict can judge). One rule for every reader: a schedule that
 * ticks every minute has its misses counted the same by the tick, the CLI and the console.
 */
function expectedTicks(schedule: ScheduleDeclaration, now: number, count: number): number[] {
  const ticks = scheduleTicks(schedule);
  const start = schedule.start ? Date.parse(schedule.start) : undefined;
  const found: number[] = [];
  let judgeable = 0;
  let tick = ticks.latestAtOrBefore(now);
  while (tick !== undefined && judgeable < count && (start === undefined || tick >= start)) {
    found.push(tick);
    if (!withinRetryWindow(tick, now)) judgeable += 1;
    // Ticks fall on whole seconds: the one before is at least a second earlier.
    tick = ticks.latestAtOrBefore(tick - 1000);
  }
  return found;
}

/**
 * Judges each tick without a job, newest first. A tick is `missed` only when the schedule provably existed at
 * its time: after its declared `start`, or an older tick ran. Otherwise, past the window, `not_evaluated`.
 */
function judge(schedule: ScheduleDeclaration, rows: ReadonlyArray<TickReport>, now: number): TickReport[] {
  const oldestRan = rows.findLast((tick) => tick.status === 'ran')?.scheduledAt;
  return rows.map((tick) => {
    if (tick.status === 'ran') return tick;
    if (withinRetryWindow(tick.scheduledAt, now)) return { ...tick, status: 'pending' };
    const existed = schedule.start !== undefined || (oldestRan !== undefined && oldestRan < tick.scheduledAt);
    return { ...tick, status: existed ? 'missed' : 'not_evaluated' };
  });
}

/**
 * A schedule's recent ticks against their jobs (one read per tick, by the occurrence identity, never a scan),
 * its last run and its next tick. A read that fails propagates: a status is never built on rows it did not see.
 */
async function scheduleStatus(
  schedule: ScheduleDeclaration,
  now: number,
  lookup: OccurrenceLookup,
  lookback: number = DEFAULT_LOOKBACK_TICKS,
): Promise<ScheduleStatus> {
  const found = await Promise.all(
    expectedTicks(schedule, now, lookback).map(async (scheduledAt): Promise<TickReport> => {
      const { identity } = occurrenceOf(schedule, scheduledAt);
      const row = await lookup(identity);
      const base = { scheduledAt, operationId: identity.operationId };
      return row ? { ...base, status: 'ran', state: row.state } : { ...base, status: 'not_evaluated' };
    }),
  );
  const ticks = judge(schedule, found, now);
  const next = scheduleTicks(schedule).nextAfter(now);
  const lastRun = ticks.find((tick) => tick.status === 'ran');
  const verdict = ticks.some((tick) => tick.status === 'missed')
    ? 'missed'
    : ticks.some((tick) => tick.status === 'not_evaluated')
      ? 'not_evaluated'
      : 'ok';
  return {
    name: schedule.name,
    ...(next !== undefined ? { next } : {}),
    ...(lastRun ? { lastRun } : {}),
    ticks,
    verdict,
  };
}

export {
  DEFAULT_LOOKBACK_TICKS,
  type OccurrenceLookup,
  type ScheduleStatus,
  scheduleStatus,
  TICK_MAX_AGE_SECONDS,
  type TickReport,
  type TickStatus,
};
