import * as z from 'zod/mini';
import { tenantIdSchema } from '../identity.js';
import { WORK_STATES } from '../states.js';
import { pageLimitSchema } from './schemas.js';

/**
 * Shapes of the admin API's query strings. Every object is strict: an unknown parameter is a 400 naming it.
 * A POST body has no schema here: it is the input of its operation, parsed once by the operation's own strict
 * schema (the router refuses a body naming `actor` or `caller`, which are always the authenticated caller).
 * Built on first use (z.lazy: the same checks and issues): a cold start parses only its route's query.
 */

/** A decimal page size in a query string. */
const limitParameter = z.lazy(() =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^[0-9]{1,3}$/, 'limit must be an integer from 1 to 100')), z.transform(Number)),
    pageLimitSchema,
  ),
);

/** GET /items: any state; succeeded, cancelled or no state need a tenant (checked by listItems). */
const listQuerySchema = z.lazy(() =>
  z.strictObject({
    state: z.optional(z.enum(WORK_STATES)),
    tenant: z.optional(tenantIdSchema),
    limit: z.optional(limitParameter),
    cursor: z.optional(z.string()),
    olderThanSeconds: z.optional(
      z.pipe(
        z.string().check(z.regex(/^[0-9]{1,9}$/, 'olderThanSeconds must be a whole number of seconds')),
        z.transform(Number),
      ),
    ),
  }),
);

/** GET /counts */
const countsQuerySchema = z.lazy(() => z.strictObject({ tenant: z.optional(tenantIdSchema) }));

/** GET /limits/{jobType}: the values are checked by readLimits (lib/admin/limits.ts). */
const limitsQuerySchema = z.lazy(() =>
  z.strictObject({ tenant: z.optional(z.string()), key: z.optional(z.string()), provider: z.optional(z.string()) }),
);

/** GET /audit */
const auditQuerySchema = z.lazy(() =>
  z.strictObject({ limit: z.optional(limitParameter), cursor: z.optional(z.string()) }),
);

/** Routes that take no query parameters. */
const noQuerySchema = z.lazy(() => z.strictObject({}));

export { auditQuerySchema, countsQuerySchema, limitsQuerySchema, listQuerySchema, noQuerySchema };
