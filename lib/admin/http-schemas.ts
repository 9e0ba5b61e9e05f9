import * as z from 'zod';
import { tenantIdSchema } from '../identity.js';
import { outcomeCodeSchema } from '../rules.js';
import { WORK_STATES } from '../states.js';
import { raiseFencesSchema } from './raise-fences.js';
import { ResolveTarget } from './resolve.js';
import { pageLimitSchema, reasonSchema } from './schemas.js';

/**
 * Shapes of the admin API's query strings and JSON bodies. Every object is strict: an unknown field is a
 * 400 naming it (so an `actor` smuggled into a body is refused, never used).
 */

/** A decimal page size in a query string. */
const limitParameter = z
  .string()
  .regex(/^[0-9]{1,3}$/, 'limit must be an integer from 1 to 100')
  .transform(Number)
  .pipe(pageLimitSchema);

/** GET /items: any state; succeeded, cancelled or no state need a tenant (checked by listItems). */
const listQuerySchema = z.strictObject({
  state: z.enum(WORK_STATES).optional(),
  tenant: tenantIdSchema.optional(),
  limit: limitParameter.optional(),
  cursor: z.string().optional(),
  olderThanSeconds: z
    .string()
    .regex(/^[0-9]{1,9}$/, 'olderThanSeconds must be a whole number of seconds')
    .transform(Number)
    .optional(),
});

/** GET /counts */
const countsQuerySchema = z.strictObject({ tenant: tenantIdSchema.optional() });

/** GET /audit */
const auditQuerySchema = z.strictObject({ limit: limitParameter.optional(), cursor: z.string().optional() });

/** Routes that take no query parameters. */
const noQuerySchema = z.strictObject({});

/** POST …/resolve */
const resolveBodySchema = z.strictObject({
  to: z.enum([ResolveTarget.succeeded, ResolveTarget.failed_terminal, ResolveTarget.queued]),
  reason: reasonSchema,
  outcomeCode: outcomeCodeSchema.optional(),
  effectDidNotHappen: z.boolean().optional(),
});

/** POST …/cancel */
const reasonBodySchema = z.strictObject({ reason: reasonSchema });

/** POST …/retry: `effectDidNotHappen` is the operator's statement, required to retry a class D item. */
const retryBodySchema = z.strictObject({ reason: reasonSchema, effectDidNotHappen: z.boolean().optional() });

/** POST /dlq/redrive */
const redriveBodySchema = z.strictObject({ max: z.number().int().min(1).max(1000).optional() });

/** POST /tenants/{tenantId}/erase-payloads */
const eraseBodySchema = z.strictObject({ reason: reasonSchema, max: z.number().int().min(1).max(100_000).optional() });

/** POST /fences/raise: the operation's own schema; the actor is the authenticated caller, never the body. */
const raiseFencesBodySchema = raiseFencesSchema.omit({ actor: true });

export {
  auditQuerySchema,
  countsQuerySchema,
  eraseBodySchema,
  listQuerySchema,
  noQuerySchema,
  raiseFencesBodySchema,
  reasonBodySchema,
  redriveBodySchema,
  resolveBodySchema,
  retryBodySchema,
};
