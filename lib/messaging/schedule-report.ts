import type { ScheduleDeclaration } from './schedule.js';
import {
  DEFAULT_LOOKBACK_TICKS,
  type OccurrenceLookup,
  type ScheduleStatus,
  scheduleStatus,
  type TickReport,
} from './schedule-status.js';

/** One schedule as `leasefence schedules` prints it and the console's Schedules page shows it. */
interface ScheduleReport {
  readonly name: string;
  readonly jobType: string;
  readonly tenantId: string;
  readonly expression: string;
  readonly timeZone: string;
  readonly status: ScheduleStatus;
  /** The verdict in words: `MISSED <n>`, `NOT EVALUATED` or `ok`. */
  readonly verdictText: string;
  /** A line for each tick that was missed or could not be judged, newest first. */
  readonly notes: ReadonlyArray<{ readonly scheduledAt: number; readonly text: string }>;
}

/** The verdict as a person reads it: a count of missed ticks, NOT EVALUATED, or ok. */
function verdictText(status: ScheduleStatus): string {
  if (status.verdict === 'missed') {
    return `MISSED ${status.ticks.filter((tick) => tick.status === 'missed').length}`;
  }
  return status.verdict === 'not_evaluated' ? 'NOT EVALUATED' : 'ok';
}

/** What a missed or unjudged tick means, in words; undefined for a tick that ran or is pending. */
function tickNote(tick: TickReport): string | undefined {
  if (tick.status === 'missed') return 'missed: no job';
  if (tick.status === 'not_evaluated') {
    return 'NOT EVALUATED: no job, and no sign the schedule existed then (declare `start`)';
  }
  return undefined;
}

/**
 * Each schedule's status (scheduleStatus: one read per recent tick, by its identity) with its verdict and notes in
 * words: the one home of what `leasefence schedules` and the console say. A failed read rejects the whole report:
 * nothing is shown as judged on rows that were not read.
 */
async function scheduleReports(
  schedules: readonly ScheduleDeclaration[],
  now: number,
  lookup: OccurrenceLookup,
  lookback: number = DEFAULT_LOOKBACK_TICKS,
): Promise<ScheduleReport[]> {
  return Promise.all(
    schedules.map(async (schedule) => {
      const status = await scheduleStatus(schedule, now, lookup, lookback);
      const notes = status.ticks.flatMap((tick) => {
        const text = tickNote(tick);
        return text === undefined ? [] : [{ scheduledAt: tick.scheduledAt, text }];
      });
      const { name, jobType, tenantId, expression, timeZone } = schedule;
      return { name, jobType, tenantId, expression, timeZone, status, verdictText: verdictText(status), notes };
    }),
  );
}

export { type ScheduleReport, scheduleReports };
