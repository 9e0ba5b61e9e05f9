import fc from 'fast-check';
import type { AdminRequest } from '../../../../lib/admin/router.js';
import { hasControlCharacter } from '../../../../lib/internal/free-text.js';
import { anyDefect, type Route, segment } from './admin-defects.js';
import { POISON } from './hostile-values.js';

/** A generated admin request and what it may be answered with. */
interface AdminCase {
  category: string;
  request: AdminRequest;
  /** Status codes allowed for it; never 500, and for malformed input never 200 or 409. */
  allowed: readonly number[];
  malformed: boolean;
}

const ACTOR = 'arn:aws:iam::123456789012:user/fuzz';

/** The valid request of a route on an identity (the starting point every defect is applied to). */
function validRequest(route: Route, tenantId: string, operationId: string): AdminRequest {
  const item = `/items/${segment(tenantId)}/${segment(operationId)}`;
  const post = (path: string, body: object): AdminRequest => ({
    method: 'POST',
    path,
    body: JSON.stringify(body),
    actor: ACTOR,
  });
  switch (route) {
    case 'list':
      return {
        method: 'GET',
        path: '/items',
        query: { state: 'unknown', tenant: tenantId, limit: '10' },
        actor: ACTOR,
      };
    case 'show':
      return { method: 'GET', path: item, actor: ACTOR };
    case 'resolve':
      return post(`${item}/resolve`, { to: 'succeeded', reason: 'checked with the provider' });
    case 'retry':
    case 'cancel':
      return post(`${item}/${route}`, { reason: 'operator request' });
    case 'redrive':
      return post('/dlq/redrive', { max: 5 });
    case 'erase':
      return post(`/tenants/${segment(tenantId)}/erase-payloads`, { reason: 'erasure request' });
    case 'audit':
      return { method: 'GET', path: '/audit', query: { limit: '5' }, actor: ACTOR };
  }
}

const ROUTES: readonly Route[] = ['list', 'show', 'resolve', 'retry', 'cancel', 'redrive', 'erase', 'audit'];

/** Malformed requests: a valid request of a random route on a seeded identity, broken by one to three defects. */
function malformedRequest(tenantId: string, operations: readonly string[]): fc.Arbitrary<AdminCase> {
  return fc
    .tuple(
      fc.constantFrom(...ROUTES),
      fc.constantFrom(...operations),
      fc.array(anyDefect, { minLength: 1, maxLength: 3 }),
    )
    .map(([route, operationId, defects]) => {
      let request = validRequest(route, tenantId, operationId);
      const applied: string[] = [];
      for (const candidate of defects) {
        const broken = candidate.apply(request, route);
        if (broken) {
          request = broken;
          applied.push(candidate.name);
        }
      }
      // A defect list that fit none of the route's parts still breaks it: fall back to a wrong method.
      if (applied.length === 0) {
        request = { ...request, method: 'PATCH' };
        applied.push('method');
      }
      return { category: `${route}:${applied.join('+')}`, request, allowed: [400, 404, 405], malformed: true };
    });
}

/** Valid requests with hostile but legal text (reasons, ids) on identities that do not exist, and read-only listings. */
function hostileValidRequest(tenantId: string): fc.Arbitrary<AdminCase> {
  const legalId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:=+@-]{0,40}$/).map((id) => `ghost-${id}`);
  const hostileReason = fc
    .array(fc.oneof(fc.constantFrom(...POISON), fc.string({ unit: 'binary', maxLength: 8 })), {
      minLength: 1,
      maxLength: 6,
    })
    .map((parts) => `r${parts.join('')}`.slice(0, 900));
  return fc
    .tuple(fc.constantFrom<Route>('show', 'resolve', 'retry', 'cancel', 'list', 'audit'), legalId, hostileReason)
    .map(([route, operationId, reason]) => {
      const request = validRequest(route, tenantId, operationId);
      if (request.body) request.body = JSON.stringify({ ...JSON.parse(request.body), reason });
      const readOnly = route === 'list' || route === 'audit';
      // A reason that could spoof an operator's screen (once trimmed, as the API trims) is refused with 400 before any lookup.
      const spoofing = request.body !== undefined && hasControlCharacter(reason.trim());
      const allowed = readOnly ? [200] : spoofing ? [400] : [404];
      return { category: `valid:${route}`, request, allowed, malformed: false };
    });
}

/** The admin request generator: mostly malformed, some hostile but valid. */
function adminRequestArbitrary(tenantId: string, operations: readonly string[]): fc.Arbitrary<AdminCase> {
  return fc.oneof(
    { weight: 9, arbitrary: malformedRequest(tenantId, operations) },
    { weight: 1, arbitrary: hostileValidRequest(tenantId) },
  );
}

export { type AdminCase, adminRequestArbitrary };
