import * as z from 'zod';
import { PARKED_STATES } from '../states.js';

/** Who acted: the IAM caller ARN from the Function URL (never from the request body). */
const actorSchema = z.string().min(1, 'actor is required').max(2048);

/** Why an operator acted; stored in the audit trail, so it must say something and stay short. */
const reasonSchema = z.string().trim().min(1, 'reason must not be empty').max(1000);

/** One of the parked states the admin API lists. */
const parkedStateSchema = z.enum(PARKED_STATES);

/** Page size of admin listings. */
const pageLimitSchema = z.number().int().min(1).max(100);

/** Who and why, for every audited action. */
const actionSchema = z.strictObject({ actor: actorSchema, reason: reasonSchema });

export { actionSchema, actorSchema, pageLimitSchema, parkedStateSchema, reasonSchema };
