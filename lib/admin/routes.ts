import { InvalidInputError } from '../errors.js';

/**
 * The admin API's routes. `{operationId}` may itself contain `/`: plain through the Function URL and the local admin
 * server (which refuse %2F, request-target.ts), encoded as %2F or not through the console's in-process API.
 */
const AdminRoute = {
  listItems: 'GET /items',
  showItem: 'GET /items/{tenantId}/{operationId}',
  resolveItem: 'POST /items/{tenantId}/{operationId}/resolve',
  retryItem: 'POST /items/{tenantId}/{operationId}/retry',
  cancelItem: 'POST /items/{tenantId}/{operationId}/cancel',
  approveItem: 'POST /items/{tenantId}/{operationId}/approve',
  rejectItem: 'POST /items/{tenantId}/{operationId}/reject',
  approvalPayload: 'POST /items/{tenantId}/{operationId}/payload',
  redrive: 'POST /dlq/redrive',
  erasePayloads: 'POST /tenants/{tenantId}/erase-payloads',
  listAudit: 'GET /audit',
  raiseFences: 'POST /fences/raise',
  counts: 'GET /counts',
  limits: 'GET /limits/{jobType}',
  health: 'GET /health',
} as const;
type AdminRoute = (typeof AdminRoute)[keyof typeof AdminRoute];

/** A matched route and its path parameters, or why nothing matched (404 unknown path, 405 wrong method). */
type RouteMatch =
  | { ok: true; route: AdminRoute; tenantId?: string; operationId?: string; jobType?: string }
  | { ok: false; status: 404 | 405; allow?: string };

const ITEM_ACTIONS = {
  resolve: AdminRoute.resolveItem,
  retry: AdminRoute.retryItem,
  cancel: AdminRoute.cancelItem,
  approve: AdminRoute.approveItem,
  reject: AdminRoute.rejectItem,
  payload: AdminRoute.approvalPayload,
} as const;

/** Splits a path into percent-decoded segments; a malformed escape is a 400 on `path`. */
function pathSegments(path: string): string[] {
  const trimmed = path.replace(/^\/+/, '').replace(/\/$/, '');
  if (trimmed === '') return [];
  return trimmed.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new InvalidInputError('invalid path: malformed percent-encoding', [
        { path: 'path', message: 'malformed percent-encoding' },
      ]);
    }
  });
}

/** Matches method + path against the route table. Pure; identities are validated later by the operations. */
function matchRoute(method: string, path: string): RouteMatch {
  const segments = pathSegments(path);
  const [head, ...rest] = segments;
  const verb = method.toUpperCase();
  const only = (
    allowed: 'GET' | 'POST',
    route: AdminRoute,
    params: { tenantId?: string; operationId?: string; jobType?: string } = {},
  ) =>
    verb === allowed
      ? ({ ok: true, route, ...params } as const)
      : ({ ok: false, status: 405, allow: allowed } as const);

  if (head === 'items' && rest.length === 0) return only('GET', AdminRoute.listItems);
  if (head === 'items' && rest.length >= 2) {
    const [tenantId, ...operation] = rest as [string, ...string[]];
    if (verb === 'GET') return { ok: true, route: AdminRoute.showItem, tenantId, operationId: operation.join('/') };
    const action = operation.at(-1) as keyof typeof ITEM_ACTIONS;
    if (verb === 'POST' && operation.length >= 2 && Object.hasOwn(ITEM_ACTIONS, action)) {
      return { ok: true, route: ITEM_ACTIONS[action], tenantId, operationId: operation.slice(0, -1).join('/') };
    }
    return {
      ok: false,
      status: 405,
      allow: 'GET, POST (…/resolve | …/retry | …/cancel | …/approve | …/reject | …/payload)',
    };
  }
  if (head === 'dlq' && rest.length === 1 && rest[0] === 'redrive') return only('POST', AdminRoute.redrive);
  if (head === 'tenants' && rest.length === 2 && rest[1] === 'erase-payloads') {
    return only('POST', AdminRoute.erasePayloads, { tenantId: rest[0] as string });
  }
  if (head === 'audit' && rest.length === 0) return only('GET', AdminRoute.listAudit);
  if (head === 'fences' && rest.length === 1 && rest[0] === 'raise') return only('POST', AdminRoute.raiseFences);
  if (head === 'counts' && rest.length === 0) return only('GET', AdminRoute.counts);
  if (head === 'limits' && rest.length === 1) return only('GET', AdminRoute.limits, { jobType: rest[0] as string });
  if (head === 'health' && rest.length === 0) return only('GET', AdminRoute.health);
  return { ok: false, status: 404 };
}

export { AdminRoute, matchRoute, type RouteMatch };
