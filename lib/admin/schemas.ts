import * as z from 'zod';
import { freeTextSchema } from '../internal/free-text.js';
import { PARKED_STATES } from '../states.js';

/** Who acted: the IAM caller ARN from the Function URL (never from the request body); no control characters. */
const actorSchema = freeTextSchema('actor', 2048);

/** Why an operator acted; stored in the audit trail and shown by the CLI, so: short, no control characters. */
const reasonSchema = z.string().trim().pipe(freeTextSchema('reason', 1000));

/** One of the parked states the admin API lists. */
const parkedStateSchema = z.enum(PARKED_STATES);

/** Page size of admin listings. */
const pageLimitSchema = z.number().int().min(1).max(100);

/** Who and why, for every audited action. */
const actionSchema = z.strictObject({ actor: actorSchema, reason: reasonSchema });

export { actionSchema, actorSchema, pageLimitSchema, parkedStateSchema, reasonSchema };
