import * as z from 'zod/mini';

/**
 * How leasefence names an AWS principal in an allowlist, and how a caller is matched against one. IAM gives every
 * user and role a unique id (`AIDA…`, `AROA…`) that is never reused, even by a principal recreated under the same
 * name; an assumed-role session is `AROA…:<session name>`, and the session name is chosen by whoever assumed the
 * role. So an entry names a role (all its sessions), never trusts a session name it did not spell out.
 */

/** An IAM unique id (`AIDA…` user, `AROA…` role), optionally `:session` (then only that session). */
const UNIQUE_ID = /^A[A-Z0-9]{15,127}(:[\w+=,.@-]{2,64})?$/;

/** A user or role ARN of any partition (`arn:aws:iam::123456789012:role/path/name`). */
const PRINCIPAL_ARN = /^arn:[\w-]+:iam::\d{12}:(user|role)\/[\w+=,.@/-]{1,512}$/;

// Built on first use (z.lazy: the same checks and issues), not at import: a cold start whose first events never
// reach this schema does not pay for building it (BENCHMARKS.md figure 5).
/** An IAM unique id (`AIDA…`, `AROA…`), optionally `:session`: what SQS reports as a message's SenderId. */
const uniqueIdSchema = z.lazy(() =>
  z.string().check(z.regex(UNIQUE_ID, 'must be an IAM unique id (AIDA…, AROA…[:session])')),
);

/** One allowlist entry: a unique id (optionally with its session) or a user or role ARN. */
const principalEntrySchema = z.lazy(() =>
  z.string().check(
    z.refine((entry) => UNIQUE_ID.test(entry) || PRINCIPAL_ARN.test(entry), {
      message: 'must be an IAM unique id (AIDA…, AROA…[:session]) or a user or role ARN',
    }),
  ),
);

/** Who a request or message came from, as AWS authenticated it. */
interface AuthenticatedPrincipal {
  /** The caller's ARN (`arn:aws:sts::…:assumed-role/Name/session` for a role session). */
  arn?: string;
  /** The unique id (`AIDA…`, or `AROA…:session`): SQS's SenderId, the Function URL's userId. */
  userId?: string;
}

/** An assumed-role session ARN's account, role name and session (`arn:aws:sts::1:assumed-role/Ops/alice`). */
function assumedRole(arn: string): { partition: string; account: string; role: string } | undefined {
  const match = /^arn:([\w-]+):sts::(\d{12}):assumed-role\/([\w+=,.@-]+)\/[\w+=,.@-]+$/.exec(arn);
  return match ? { partition: match[1] ?? '', account: match[2] ?? '', role: match[3] ?? '' } : undefined;
}

/**
 * True when `entry` names `principal`: the same unique id (an entry without `:session` covers every session of the
 * role), the same ARN, or a role ARN whose sessions the caller's assumed-role ARN is (a role's path is not in the
 * session ARN, so the name decides). False for anything else, an unparsable entry included.
 */
function principalMatches(entry: string, principal: AuthenticatedPrincipal): boolean {
  if (UNIQUE_ID.test(entry)) {
    const id = principal.userId;
    if (id === undefined) return false;
    return entry.includes(':') ? id === entry : id === entry || id.startsWith(`${entry}:`);
  }
  const arn = principal.arn;
  if (arn === undefined || !PRINCIPAL_ARN.test(entry)) return false;
  if (arn === entry) return true;
  const session = assumedRole(arn);
  const role = /^arn:([\w-]+):iam::(\d{12}):role\/(?:.*\/)?([\w+=,.@-]+)$/.exec(entry);
  return (
    session !== undefined &&
    role !== null &&
    role[1] === session.partition &&
    role[2] === session.account &&
    role[3] === session.role
  );
}

export { type AuthenticatedPrincipal, principalEntrySchema, principalMatches, uniqueIdSchema };
