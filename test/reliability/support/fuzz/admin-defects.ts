import fc from 'fast-check';
import type { AdminRequest } from '../../../../lib/admin/router.js';
import { hugeString, poisonedString, wrongType } from './hostile-values.js';

/** The routes of the admin API the fuzzer builds requests for. */
type Route = 'list' | 'show' | 'resolve' | 'retry' | 'cancel' | 'redrive' | 'erase' | 'audit';
const ITEM_ROUTES: readonly Route[] = ['show', 'resolve', 'retry', 'cancel'];
const POST_ROUTES: readonly Route[] = ['resolve', 'retry', 'cancel', 'redrive', 'erase'];

/** A segment for a path: percent-encoded when it can be, raw otherwise (lone surrogates cannot be encoded). */
function segment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A defect: a name and how it breaks a request of a route (undefined when it does not apply to the route). */
type Defect = { name: string; apply: (request: AdminRequest, route: Route) => AdminRequest | undefined };

const badMethod = fc
  .constantFrom(
    'PUT',
    'DELETE',
    'PATCH',
    'HEAD',
    'OPTIONS',
    'TRACE',
    'CONNECT',
    '',
    'GETT',
    'POSTS',
    'G ET',
    '\u0000GET',
    'GET\u202e',
  )
  .map((method): Defect => ({ name: 'method', apply: (request) => ({ ...request, method }) }));

const unknownPath = fc
  .oneof(
    fc.constantFrom(
      '/Items',
      '/items2',
      '/\u00edtems',
      '/audit/x',
      '/dlq',
      '/dlq/redrive/now',
      '/tenants/fz/erase',
      '/',
      '',
      '/admin',
    ),
    fc.array(poisonedString.map(segment), { minLength: 1, maxLength: 4 }).map((parts) => `/zz/${parts.join('/')}`),
  )
  .map((path): Defect => ({ name: 'unknown-path', apply: (request) => ({ ...request, path }) }));

const badEscape = fc.tuple(fc.constantFrom('%', '%G0', '%E0%A4', '%ED%A0%80', '%C0%AF', '%FF', '%u0041'), fc.nat()).map(
  ([broken, at]): Defect => ({
    name: 'percent-encoding',
    apply: (request) => {
      const cut = 1 + (at % Math.max(1, request.path.length));
      return { ...request, path: `${request.path.slice(0, cut)}${broken}${request.path.slice(cut)}` };
    },
  }),
);

/** A string no tenant or operation id accepts. */
const badId = fc.oneof(poisonedString, fc.constant(''), fc.constantFrom('a'.repeat(257), '.lead', '-lead'), hugeString);

const badIdentity = fc.tuple(badId, fc.boolean()).map(
  ([value, onTenant]): Defect => ({
    name: onTenant ? 'tenant-id' : 'operation-id',
    apply: (request, route) => {
      if (route === 'list') return onTenant ? { ...request, query: { ...request.query, tenant: value } } : undefined;
      if (route === 'erase')
        return onTenant ? { ...request, path: `/tenants/${segment(value)}/erase-payloads` } : undefined;
      if (!ITEM_ROUTES.includes(route) || value === '') return undefined;
      const [, items, tenantId, operationId, ...rest] = request.path.split('/');
      const parts = onTenant ? [items, segment(value), operationId] : [items, tenantId, segment(value)];
      return { ...request, path: `/${[...parts, ...rest].join('/')}` };
    },
  }),
);

const badQuery = fc
  .tuple(
    fc.constantFrom('unknown-parameter', 'state', 'no-state', 'limit', 'cursor'),
    fc.oneof(
      poisonedString,
      fc.constantFrom('done', 'UNKNOWN', '', 'Queued', '0', '101', '1.5', 'abc', ' 5', '1e1', '-1'),
    ),
    fc.oneof(fc.base64String({ maxLength: 40 }), poisonedString, fc.constant('e30')),
  )
  .map(
    ([what, value, cursor]): Defect => ({
      name: `query:${what}`,
      apply: (request, route) => {
        const query = { ...request.query };
        if (what === 'unknown-parameter') return { ...request, query: { ...query, [`x${value}`]: value } };
        if (route !== 'list' && route !== 'audit') return undefined;
        if (what === 'state' && route === 'list') return { ...request, query: { ...query, state: value } };
        // Without a state a listing needs a tenant (it is then a Query on the tenant): drop both.
        if (what === 'no-state' && route === 'list') {
          return { ...request, query: { ...query, state: undefined, tenant: undefined } };
        }
        if (what === 'limit' && value !== '') return { ...request, query: { ...query, limit: value } };
        if (what === 'cursor') return { ...request, query: { ...query, cursor } };
        return undefined;
      },
    }),
  );

/** Bodies that are not JSON objects of the route's shape. */
const badBody = fc
  .tuple(
    fc.constantFrom('not-json', 'not-object', 'extra-field', 'reason', 'to', 'outcome', 'queued-with-outcome', 'max'),
    fc.oneof(
      fc.constantFrom('{', 'nul', '{"reason":', '\u0000', "{'a':1}"),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).filter((text) => text.trim() !== '' && !isJson(text)),
    ),
    fc.oneof(fc.constantFrom('', '   ', '\u00a0\u2003', 'r'.repeat(1_001)), wrongType),
    // Never a resolve target, never a legal outcome code: poison, empty, or not a string.
    fc.oneof(poisonedString, fc.constant(''), wrongType),
    // Never a legal max for redrive (1-1,000) or erase (1-100,000).
    fc.constantFrom(0, -1, 1.5, '10', null, true, [5], { n: 5 }, 100_001, 2 ** 40, -(2 ** 40)),
  )
  .map(
    ([what, text, reason, token, max]): Defect => ({
      name: `body:${what}`,
      apply: (request, route) => {
        const body = (isJson(request.body ?? '') ? JSON.parse(request.body ?? '{}') : {}) as Record<string, unknown>;
        if (!POST_ROUTES.includes(route)) return { ...request, body: text.trim() === '' ? 'x' : text };
        const as = (value: unknown) => ({ ...request, body: JSON.stringify(value) });
        if (what === 'not-json') return { ...request, body: text };
        if (what === 'not-object') return as([body]);
        if (what === 'extra-field') {
          const names = [
            'actor',
            'Reason',
            '__proto__',
            'constructor',
            `extra_${(JSON.stringify(token) ?? 'x').slice(0, 20)}`,
          ];
          return as({ ...body, [names[text.length % names.length] as string]: 'x' });
        }
        if (what === 'reason' && route !== 'redrive') return as({ ...body, reason });
        if (what === 'to' && route === 'resolve') return as({ ...body, to: token });
        if (what === 'outcome' && route === 'resolve') return as({ ...body, outcomeCode: token === '' ? '#' : token });
        if (what === 'queued-with-outcome' && route === 'resolve')
          return as({ ...body, to: 'queued', outcomeCode: 'ok' });
        if (what === 'max' && (route === 'redrive' || route === 'erase')) return as({ ...body, max });
        return undefined;
      },
    }),
  );

const badActor = fc
  .constantFrom('', 'a'.repeat(2_049))
  .map((actor): Defect => ({ name: 'actor', apply: (request) => ({ ...request, actor }) }));

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Every kind of defect; each one, applied last, leaves the request malformed (400, 404 or 405). */
const anyDefect: fc.Arbitrary<Defect> = fc.oneof(
  badMethod,
  unknownPath,
  badEscape,
  badIdentity,
  badQuery,
  badBody,
  badActor,
);

export { anyDefect, type Defect, type Route, segment };
