import * as z from 'zod/mini';
import { InvalidInputError } from '../errors.js';
import { payloadHash } from '../hashing.js';
import { parseIdentity, tenantIdSchema, type ValidIdentity } from '../identity.js';
import { memoizeBounded } from '../internal/memoize.js';
import { parseInput } from '../internal/validation.js';
import { jobTypeSchema, jobVersionSchema, maxAttemptsSchema } from '../rules.js';
import { type JobBudget, type ScheduledRow, scheduleDelayedJob } from './delayed-job.js';
import type { ProducerDependencies } from './producer.js';
import {
  checkExpression,
  expressionFields,
  parseScheduleExpression,
  type ScheduleTicks,
} from './schedule-expression.js';

/** Largest serialized payload of a schedule: it travels in the tick function's environment (4 KB in all). */
const MAX_SCHEDULE_PAYLOAD_CHARS = 2048;

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
/** A JSON value, checked by a round trip (no functions, dates, undefined or cycles reach the template). */
const jsonPayloadSchema = z.lazy(() =>
  z.unknown().check(
    z.superRefine((value, ctx) => {
      let text: string | undefined;
      try {
        text = JSON.stringify(value);
      } catch {
        text = undefined;
      }
      if (text === undefined || JSON.stringify(JSON.parse(text)) !== text || !isDeepJson(value)) {
        ctx.addIssue({ code: 'custom', message: 'the payload must be plain JSON (it is stored in the template)' });
      } else if (text.length > MAX_SCHEDULE_PAYLOAD_CHARS) {
        ctx.addIssue({
          code: 'custom',
          message: `the payload is over ${MAX_SCHEDULE_PAYLOAD_CHARS} characters of JSON`,
        });
      }
    }),
  ),
);

/** True for values JSON keeps as they are (plain objects, arrays, strings, finite numbers, booleans, null). */
function isDeepJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isDeepJson);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value as Record<string, unknown>).every(isDeepJson);
}

const scheduleSchema = z.lazy(() =>
  z
    .strictObject({
      /** 1–64 chars of `[A-Za-z0-9._-]`: part of every occurrence's operation id; never rename a live schedule. */
      name: z
        .string()
        .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a schedule name is 1-64 chars of [A-Za-z0-9._-]')),
      jobType: jobTypeSchema,
      tenantId: tenantIdSchema,
      /** The job's payload, the same for every occurrence; it is stored in the template, so nothing secret. */
      payload: jsonPayloadSchema,
      ...expressionFields(),
      /**
       * When the schedule began (ISO 8601 instant): ticks before it are not expected, so `leasefence schedules`
       * can tell a missed tick from one before the schedule existed. Also the Scheduler's start date.
       */
      start: z.optional(z.iso.datetime({ offset: true })),
      /** Attempt budget of each occurrence's row (the row records it). Default 3, defineJob's default. */
      maxAttempts: z._default(maxAttemptsSchema, 3),
      /** The job version every occurrence is bound to. Default: none, the first claim binds it. */
      jobVersion: z.optional(jobVersionSchema),
    })
    .check(z.superRefine(checkExpression)),
);

/** A recurring job, checked: plain data (the construct puts it in the template and the tick function's environment). */
type ScheduleDeclaration = Readonly<z.output<typeof scheduleSchema>>;

/** Input of defineSchedule. */
type ScheduleInput = z.input<typeof scheduleSchema>;

/**
 * Validates a schedule declaration: its expression in its time zone, a plain JSON payload of at most 2 KB.
 * InvalidInputError naming each bad field. Frozen.
 * @example
 * defineSchedule({ name: 'nightly-report', jobType: 'report', tenantId: 'acme', payload: { kind: 'usage' },
 *   expression: 'cron(0 2 * * ? *)', timeZone: 'Europe/Berlin' });
 */
function defineSchedule(input: ScheduleInput): ScheduleDeclaration {
  return Object.freeze(parseInput(scheduleSchema, input, 'schedule'));
}

/** Several schedules at once, each checked, names unique (InvalidInputError naming the repeated one). */
function defineSchedules(inputs: readonly ScheduleInput[]): readonly ScheduleDeclaration[] {
  const schedules = inputs.map(defineSchedule);
  const seen = new Set<string>();
  for (const schedule of schedules) {
    if (seen.has(schedule.name)) {
      throw new InvalidInputError(`schedule name ${schedule.name} is used twice`, [
        { path: 'name', message: 'duplicate' },
      ]);
    }
    seen.add(schedule.name);
  }
  return Object.freeze(schedules);
}

const ticksOf = memoizeBounded((key: string) => {
  const [expression, timeZone] = JSON.parse(key) as [string, string];
  return parseScheduleExpression(expression, timeZone);
}, 256);

/** The ticks of a checked schedule (parsed once per expression and time zone). */
function scheduleTicks(schedule: Pick<ScheduleDeclaration, 'expression' | 'timeZone'>): ScheduleTicks {
  return ticksOf(JSON.stringify([schedule.expression, schedule.timeZone]));
}

/** One occurrence: the tick it belongs to and the identity derived from it (schedule name + tick time). */
interface Occurrence {
  readonly scheduledAt: number;
  readonly identity: ValidIdentity;
}

/** The occurrence of the tick at `scheduledAt` (a tick of the schedule): `schedule/<name>/<ISO 8601 UTC>`. Pure. */
function occurrenceOf(schedule: ScheduleDeclaration, scheduledAt: number): Occurrence {
  const operationId = `schedule/${schedule.name}/${new Date(scheduledAt).toISOString()}`;
  return { scheduledAt, identity: parseIdentity({ tenantId: schedule.tenantId, operationId }) };
}

/**
 * The occurrence a delivery at `scheduledTime` (epoch ms) belongs to: the schedule's latest tick at or before it
 * (a rate's interval start), so a duplicate or a late delivery of the same tick derives the same identity. Pure;
 * undefined when no tick is at or before that time (an at() still ahead).
 */
function occurrenceAt(schedule: ScheduleDeclaration, scheduledTime: number): Occurrence | undefined {
  const tick = scheduleTicks(schedule).latestAtOrBefore(scheduledTime);
  return tick === undefined ? undefined : occurrenceOf(schedule, tick);
}

/** The schedule's attempt budget and version for its rows, unless `jobs` defines the job type itself. */
function withScheduleBudget(jobs: readonly JobBudget[], schedule: ScheduleDeclaration): readonly JobBudget[] {
  if (jobs.some((job) => job.type === schedule.jobType)) return jobs;
  return [...jobs, { type: schedule.jobType, maxAttempts: schedule.maxAttempts, version: schedule.jobVersion }];
}

/**
 * Enqueues the occurrence of the tick at `scheduledTime`, body then row first (scheduleDelayedJob, due now): its
 * identity comes from the schedule and the tick, so another delivery of the same tick (a duplicate, a late retry, a
 * second scheduler) is a replay that writes and sends nothing, never a second job. The row's attempt budget is the
 * job definition's when `delayed.jobs` has it, else the schedule's. Needs `payloads` and `delayed`; a time before
 * the schedule's first tick ▶ InvalidInputError, nothing written.
 */
async function enqueueOccurrence(
  deps: ProducerDependencies,
  schedule: ScheduleDeclaration,
  scheduledTime: number,
): Promise<ScheduledRow & { identity: ValidIdentity; scheduledAt: number }> {
  const occurrence = occurrenceAt(schedule, scheduledTime);
  if (!occurrence) {
    throw new InvalidInputError(`schedule ${schedule.name} has no tick at or before that time`, [
      { path: 'scheduledTime', message: 'before the first tick' },
    ]);
  }
  if (!deps.payloads || !deps.delayed) {
    throw new InvalidInputError('a schedule writes its payload and row first: pass `payloads` and `delayed`', [
      { path: deps.payloads ? 'delayed' : 'payloads', message: 'missing' },
    ]);
  }
  const { identity } = occurrence;
  const hash = payloadHash(schedule.payload);
  await deps.payloads.write(identity, schedule.payload, hash);
  const delayed = { ...deps.delayed, jobs: withScheduleBudget(deps.delayed.jobs, schedule) };
  const row = await scheduleDelayedJob(
    { ...deps, delayed },
    { identity, jobType: schedule.jobType, payloadHash: hash, payload: { inline: true }, delaySeconds: 0 },
  );
  return { ...row, identity, scheduledAt: occurrence.scheduledAt };
}

export {
  defineSchedule,
  defineSchedules,
  enqueueOccurrence,
  MAX_SCHEDULE_PAYLOAD_CHARS,
  type Occurrence,
  occurrenceAt,
  occurrenceOf,
  type ScheduleDeclaration,
  type ScheduleInput,
  scheduleTicks,
};
