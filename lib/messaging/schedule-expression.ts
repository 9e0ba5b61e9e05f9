import { Cron } from 'croner';
import * as z from 'zod/mini';
import { InvalidInputError } from '../errors.js';

const MINUTE_MS = 60_000;
const UNIT_MS = { minute: MINUTE_MS, hour: 60 * MINUTE_MS, day: 24 * 60 * MINUTE_MS } as const;

/** EventBridge Scheduler's `rate(value unit)`: at least one minute, at most a year (EventBridge's own bounds). */
const RATE = /^rate\((\d{1,6}) (minute|minutes|hour|hours|day|days)\)$/;
/** EventBridge Scheduler's six-field `cron(minutes hours day-of-month month day-of-week year)`. */
const CRON = /^cron\(([^()]+)\)$/;
/** EventBridge Scheduler's one-time `at(yyyy-mm-ddThh:mm:ss)`, a local time in the schedule's time zone. */
const AT = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/;

/** A parsed schedule expression: its ticks, as instants (epoch ms), in the schedule's time zone. */
interface ScheduleTicks {
  /** The expression as EventBridge Scheduler takes it (`rate(...)`, `cron(...)`, `at(...)`). */
  readonly expression: string;
  readonly kind: 'rate' | 'cron' | 'at';
  /** The latest tick at or before `time`, or undefined when none is (before an at() or a cron's first year). */
  latestAtOrBefore(time: number): number | undefined;
  /** The first tick strictly after `time`, or undefined when there is none (after an at()). */
  nextAfter(time: number): number | undefined;
}

/** A time zone the runtime knows (IANA name, e.g. `Europe/Berlin`); EventBridge Scheduler takes the same names. */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A rate: ticks at every multiple of the interval since the Unix epoch, so every interval is one occurrence. */
function rateTicks(expression: string, amount: number, unit: string): ScheduleTicks {
  const step = amount * UNIT_MS[unit.replace(/s$/, '') as keyof typeof UNIT_MS];
  return {
    expression,
    kind: 'rate',
    latestAtOrBefore: (time) => Math.floor(time / step) * step,
    nextAfter: (time) => (Math.floor(time / step) + 1) * step,
  };
}

/**
 * EventBridge's cron fields as croner's seven-part pattern: a seconds field of 0 in front; `?` (no value)
 * becomes `*`; day of week keeps EventBridge's numbering (1 = Sunday, croner's alternativeWeekdays) and its
 * `nL` (last weekday n of the month) becomes croner's `n#L`. The year stays the seventh field.
 */
function croner7Part(fields: readonly string[]): string {
  const [minutes, hours, dayOfMonth, month, dayOfWeek, year] = fields.map((field) => (field === '?' ? '*' : field));
  const weekday = (dayOfWeek ?? '*').replace(/^([1-7])L$/, '$1#L');
  return ['0', minutes, hours, dayOfMonth, month, weekday, year].join(' ');
}

/** croner on a seven-part pattern in `timeZone`: day of month AND day of week (one of them is always `*`). */
function cronerTicks(expression: string, kind: 'cron' | 'at', pattern: string, timeZone: string): ScheduleTicks {
  const cron = new Cron(pattern, {
    timezone: timeZone,
    mode: '7-part',
    alternativeWeekdays: true,
    domAndDow: true,
    paused: true,
  });
  return {
    expression,
    kind,
    // previousRuns counts a run earlier in the same second as the reference: ask from one second later.
    latestAtOrBefore: (time) => cron.previousRuns(1, new Date(time + 1000))[0]?.getTime(),
    nextAfter: (time) => cron.nextRun(new Date(time))?.getTime(),
  };
}

/** A malformed expression: the rule it breaks, at `expression`. */
function expressionError(message: string): InvalidInputError {
  return new InvalidInputError(message, [{ path: 'expression', message }]);
}

/** The cron expression's ticks; InvalidInputError naming the rule broken (EventBridge refuses the same at deploy time). */
function cronTicks(expression: string, body: string, timeZone: string): ScheduleTicks {
  const fields = body.trim().split(/\s+/);
  if (fields.length !== 6)
    throw expressionError('a cron expression has six fields: minutes hours day month weekday year');
  const [, , dayOfMonth, , dayOfWeek] = fields;
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    throw expressionError('exactly one of day-of-month and day-of-week must be `?`');
  }
  try {
    return cronerTicks(expression, 'cron', croner7Part(fields), timeZone);
  } catch (error) {
    throw expressionError(`cron fields not understood: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Parses an EventBridge Scheduler expression in a time zone into its ticks: `rate(5 minutes)` (aligned to the
 * Unix epoch), `cron(0 9 ? * MON-FRI *)`, `at(2026-12-24T09:00:00)`. Pure. A malformed expression or an
 * unknown time zone ▶ InvalidInputError saying which (the schema reports it at `expression`).
 */
function parseScheduleExpression(expression: string, timeZone: string): ScheduleTicks {
  if (!isTimeZone(timeZone))
    throw new InvalidInputError(`unknown time zone ${timeZone}`, [
      { path: 'timeZone', message: 'not an IANA time zone' },
    ]);
  const rate = RATE.exec(expression);
  if (rate) {
    const amount = Number(rate[1]);
    if (amount < 1) throw expressionError('a rate is at least 1');
    return rateTicks(expression, amount, rate[2] ?? 'minutes');
  }
  const cron = CRON.exec(expression);
  if (cron) return cronTicks(expression, cron[1] ?? '', timeZone);
  const at = AT.exec(expression);
  if (at) {
    const [, year, month, day, hour, minute, second] = at.map(Number);
    const pattern = `${second} ${minute} ${hour} ${day} ${month} * ${year}`;
    return cronerTicks(expression, 'at', pattern, timeZone);
  }
  throw expressionError('expected rate(N minutes|hours|days), cron(6 fields) or at(yyyy-mm-ddThh:mm:ss)');
}

/**
 * A schedule expression and its time zone, checked together (the zone changes what a cron or at() means): new
 * schemas per call, built inside the schedule's lazy schema (schedule.ts), not at import.
 */
function expressionFields() {
  return {
    /** `rate(...)`, `cron(...)` or `at(...)`, as EventBridge Scheduler writes them. */
    expression: z.string().check(z.minLength(1), z.maxLength(256)),
    /** IANA time zone of a cron or at() expression. Default UTC. */
    timeZone: z._default(z.string().check(z.minLength(1), z.maxLength(64)), 'UTC'),
  };
}

/** Adds an issue at `expression` when it does not parse in its time zone. */
function checkExpression(value: { expression: string; timeZone: string }, ctx: z.core.$RefinementCtx): void {
  try {
    parseScheduleExpression(value.expression, value.timeZone);
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['expression'], message: (error as Error).message });
  }
}

export { checkExpression, croner7Part, expressionFields, parseScheduleExpression, type ScheduleTicks };
