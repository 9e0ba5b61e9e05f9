import * as z from 'zod';
import { InvalidInputError } from '../errors.js';
import { payloadHash } from '../hashing.js';
import { parseIdentity, tenantIdSchema, type ValidIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { jobTypeSchema, successorNameSchema } from '../rules.js';
import { type ScheduledRow, scheduleDelayedJob } from './delayed-job.js';
import type { ProducerDependencies } from './producer.js';

const MINUTE_MS = 60_000;

const scheduleSchema = z.strictObject({
  /** 1–64 chars of `[A-Za-z0-9._:-]`: part of every occurrence's operation id. */
  name: successorNameSchema,
  jobType: jobTypeSchema,
  tenantId: tenantIdSchema,
  payload: z.unknown(),
  /** One occurrence per this many minutes, intervals aligned to the Unix epoch (UTC). */
  rateMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60),
});

/** A recurring job, checked: one occurrence per `rateMinutes` interval. */
type ScheduleDeclaration = Readonly<z.output<typeof scheduleSchema>>;

/** Validates a schedule declaration; InvalidInputError naming each bad field. Frozen. */
function defineSchedule(input: z.input<typeof scheduleSchema>): ScheduleDeclaration {
  return Object.freeze(parseInput(scheduleSchema, input, 'schedule'));
}

/** One occurrence: the interval it belongs to and the identity derived from it (schedule name + interval start). */
interface Occurrence {
  readonly intervalStart: number;
  readonly identity: ValidIdentity;
}

/**
 * The occurrence a tick at `scheduledTime` (epoch ms) belongs to: the interval containing it, so a duplicate or a
 * late delivery of the same tick derives the same identity, `schedule/<name>/<interval start, ISO 8601 UTC>`. Pure.
 */
function occurrenceAt(schedule: ScheduleDeclaration, scheduledTime: number): Occurrence {
  const rate = schedule.rateMinutes * MINUTE_MS;
  const intervalStart = Math.floor(scheduledTime / rate) * rate;
  const operationId = `schedule/${schedule.name}/${new Date(intervalStart).toISOString()}`;
  return { intervalStart, identity: parseIdentity({ tenantId: schedule.tenantId, operationId }) };
}

/**
 * Enqueues the occurrence of the tick at `scheduledTime`, row first (scheduleDelayedJob, due now): its identity
 * comes from the schedule and the interval, so a second tick of the same interval (a duplicate delivery, a
 * second sweeper or scheduler run) is a replay that writes and sends nothing, never a second job. Needs
 * `payloads` and `delayed` in the dependencies (InvalidInputError otherwise, nothing written).
 */
async function enqueueOccurrence(
  deps: ProducerDependencies,
  schedule: ScheduleDeclaration,
  scheduledTime: number,
): Promise<ScheduledRow & { identity: ValidIdentity }> {
  const { identity } = occurrenceAt(schedule, scheduledTime);
  const hash = payloadHash(schedule.payload);
  if (!deps.payloads) {
    throw new InvalidInputError('a schedule stores its payload inline: pass `payloads`', [
      { path: 'payloads', message: 'missing' },
    ]);
  }
  await deps.payloads.write(identity, schedule.payload, hash);
  const row = await scheduleDelayedJob(deps, {
    identity,
    jobType: schedule.jobType,
    payloadHash: hash,
    payload: { inline: true },
    delaySeconds: 0,
  });
  return { ...row, identity };
}

export { defineSchedule, enqueueOccurrence, type Occurrence, occurrenceAt, type ScheduleDeclaration };
