import * as z from 'zod/mini';
import { type AuthenticatedPrincipal, principalEntrySchema, principalMatches } from '../internal/principals.js';
import { AdminRoute } from './routes.js';

/** The admin routes an allowlist can restrict: every route that changes something. */
const RESTRICTABLE_ROUTES = [
  'resolveItem',
  'retryItem',
  'cancelItem',
  'approveItem',
  'rejectItem',
  'redrive',
  'erasePayloads',
  'raiseFences',
] as const satisfies ReadonlyArray<keyof typeof AdminRoute>;

/** One of the routes above, by its AdminRoute name. */
type RestrictableRoute = (typeof RESTRICTABLE_ROUTES)[number];

// Built on first use (z.lazy: the same checks and issues), not at import: a cold start whose first events never
// reach this schema does not pay for building it (BENCHMARKS.md figure 5).
/**
 * Per-route allowlists: a route named here answers only the principals listed for it (a role ARN covers every
 * session of the role; see lib/internal/principals.ts); a route not named answers whoever may invoke the admin
 * function. At least one entry per named route: an empty list would lock the route for everyone by accident.
 */
const routePrincipalsSchema = z.lazy(() =>
  z.partialRecord(z.enum(RESTRICTABLE_ROUTES), z.array(principalEntrySchema).check(z.minLength(1), z.maxLength(100))),
);

/** Parsed per-route allowlists (see routePrincipalsSchema). */
type RoutePrincipals = z.infer<typeof routePrincipalsSchema>;

const ROUTE_NAMES = new Map(Object.entries(AdminRoute).map(([name, route]) => [route, name]));

/**
 * The allowlist a route answers to: its own, except the approver's payload read, which answers to approveItem's (only
 * the principals allowed to approve may see what they would approve). Undefined for a route no allowlist restricts.
 */
function allowlistOf(routeName: string | undefined): RestrictableRoute | undefined {
  if (routeName === 'approvalPayload') return 'approveItem';
  return (RESTRICTABLE_ROUTES as readonly string[]).includes(routeName ?? '')
    ? (routeName as RestrictableRoute)
    : undefined;
}

/**
 * Why `principal` may not use `route`, or undefined when it may: the route has an allowlist and no entry names the
 * principal. Without allowlists every route is open to whoever reached the router (the Function URL's IAM decides).
 */
function routeRefusal(
  route: AdminRoute,
  principal: AuthenticatedPrincipal,
  allowlists: RoutePrincipals | undefined,
): string | undefined {
  const name = allowlistOf(ROUTE_NAMES.get(route));
  const allowed = name === undefined ? undefined : allowlists?.[name];
  if (allowed === undefined) return undefined;
  if (allowed.some((entry) => principalMatches(entry, principal))) return undefined;
  return `${route} is limited to the principals this deployment allows for it (${name})`;
}

export { RESTRICTABLE_ROUTES, type RestrictableRoute, type RoutePrincipals, routePrincipalsSchema, routeRefusal };
