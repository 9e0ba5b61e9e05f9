import * as z from 'zod/mini';
import { freeTextSchema } from '../internal/free-text.js';
import { PARKED_STATES } from '../states.js';

// Built on first use (z.lazy: the same checks and issues), not at import: an admin cold start parses only the
// schemas of the route it serves.

/** Who acted: the IAM caller ARN from the Function URL (never from the request body); no control characters. */
const actorSchema = z.lazy(() => freeTextSchema('actor', 2048));

/**
 * The AWS caller behind `actor` as the Function URL authenticated it (requestContext.authorizer.iam): account, unique
 * user id (`AROA…:session` for a role) and access key id. Audited beside the ARN, whose session name the caller chose.
 */
const callerSchema = z.lazy(() =>
  z.strictObject({
    accountId: z.string().check(z.regex(/^\d{12}$/, 'accountId must be 12 digits')),
    // AIDA… (user), AROA…:session (role), the account id (root), account:name (federated user).
    userId: z.string().check(z.regex(/^[\w+=,.@:-]{1,256}$/, 'userId must be an IAM user id')),
    accessKeyId: z.string().check(z.regex(/^[A-Z0-9]{16,128}$/, 'accessKeyId must be an access key id')),
  }),
);

/** Why an operator acted; stored in the audit trail and shown by the CLI, so: short, no control characters. */
const reasonSchema = z.lazy(() => z.pipe(z.string().check(z.trim()), freeTextSchema('reason', 1000)));

/** One of the parked states the admin API lists. */
const parkedStateSchema = z.lazy(() => z.enum(PARKED_STATES));

/** Page size of admin listings. */
const pageLimitSchema = z.lazy(() => z.number().check(z.int(), z.gte(1), z.lte(100)));

/** Who and why, for every audited action: a new object schema per call (for the actions that extend it). */
function actionObjectSchema() {
  return z.strictObject({ actor: actorSchema, caller: z.optional(callerSchema), reason: reasonSchema });
}

/** Who and why, for every audited action. */
const actionSchema = z.lazy(actionObjectSchema);

export {
  actionObjectSchema,
  actionSchema,
  actorSchema,
  callerSchema,
  pageLimitSchema,
  parkedStateSchema,
  reasonSchema,
};
