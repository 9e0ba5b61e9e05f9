import type { Clock } from '../clock.js';
import type { WorkItemStore } from '../store/index.js';
import type { ProducerDependencies } from './producer.js';
import { enqueueOccurrence, occurrenceAt, type ScheduleDeclaration } from './schedule.js';
import { scheduleStatus, TICK_MAX_AGE_SECONDS } from './schedule-status.js';

/** How far ahead of the clock a tick's scheduled time may be (clock skew); further is refused, nothing written. */
const MAX_TICK_LEAD_MS = 5 * 60_000;

/** What a tick needs: a rows-first producer, the store to check past ticks, the declared schedules, a clock. */
interface ScheduleTickDependencies {
  producer: ProducerDependencies;
  store: Pick<WorkItemStore, 'get'>;
  schedules: readonly ScheduleDeclaration[];
  clock: Clock;
}

/**
 * One tick's result: its occurrence `created` or a `replay` (the same tick delivered again), with how many of
 * the schedule's recent ticks have no job (`missed`); or `refused` with nothing written. Names and times only:
 * no tenant, no payload.
 */
type TickOutcome =
  | {
      outcome: 'created' | 'replay';
      schedule: string;
      scheduledAt: string;
      state: string;
      wake?: 'sent' | 'deferred';
      missed: number;
    }
  | { outcome: 'refused'; reason: 'unknown_schedule' | 'ahead_of_clock' | 'before_first_tick' | 'invalid_tick' };

/**
 * Runs one tick of the schedule `name` at `scheduledTime` (epoch ms): enqueues the occurrence it belongs to
 * (enqueueOccurrence: a duplicate or late delivery is a replay, never a second job), then counts the recent
 * ticks with no job by the rule `leasefence schedules` and the console use (scheduleStatus, default look-back).
 * The one code path of the Lambda tick and the local stack's timer. An unknown schedule, a
 * time more than 5 minutes ahead of the clock or before the first tick ▶ `refused`, nothing written; a
 * store or queue failure throws (the caller retries the tick, which replays).
 */
async function tickSchedule(deps: ScheduleTickDependencies, name: string, scheduledTime: number): Promise<TickOutcome> {
  const schedule = deps.schedules.find((candidate) => candidate.name === name);
  if (!schedule) return { outcome: 'refused', reason: 'unknown_schedule' };
  const now = deps.clock.now();
  if (!Number.isFinite(scheduledTime)) return { outcome: 'refused', reason: 'invalid_tick' };
  if (scheduledTime > now + MAX_TICK_LEAD_MS) return { outcome: 'refused', reason: 'ahead_of_clock' };
  if (!occurrenceAt(schedule, scheduledTime)) return { outcome: 'refused', reason: 'before_first_tick' };
  const row = await enqueueOccurrence(deps.producer, schedule, scheduledTime);
  const status = await scheduleStatus(schedule, now, async (identity) => deps.store.get(identity));
  return {
    outcome: row.outcome,
    schedule: schedule.name,
    scheduledAt: new Date(row.scheduledAt).toISOString(),
    state: row.state,
    ...(row.wake ? { wake: row.wake } : {}),
    missed: status.ticks.filter((tick) => tick.status === 'missed').length,
  };
}

export { MAX_TICK_LEAD_MS, type ScheduleTickDependencies, TICK_MAX_AGE_SECONDS, type TickOutcome, tickSchedule };
