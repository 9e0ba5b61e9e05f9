import * as z from 'zod';
import { PARKED_STATES } from '../states.js';

/** Who acted: the IAM caller ARN from the Function URL (never from the request body). */
const actorSchema = z.string().min(1, 'actor is required').max(2048);

/** Why an operator acted; stored in the audit trail, so it must say something and stay short. */
const reasonSchema = z.string().trim().min(1, 'reason must not be empty').max(1000);

/** A short, machine-readable outcome or error code set by an operator. */
const outcomeCodeSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'outcomeCode must be 1-64 chars of [A-Za-z0-9._:-]');

/** One of the parked states the admin API lists. */
const parkedStateSchema = z.enum(PARKED_STATES);

/** Page size of admin listings. */
const pageLimitSchema = z.number().int().min(1).max(100);

/** Who and why, for every audited action. */
const actionSchema = z.strictObject({ actor: actorSchema, reason: reasonSchema });

export { actionSchema, actorSchema, outcomeCodeSchema, pageLimitSchema, parkedStateSchema, reasonSchema };
