import { describe, expect, it } from 'vitest';
import { AdminRoute, matchRoute } from '../../../lib/admin/routes.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { expectThrown } from '../../support/expectations.js';

describe('admin route table', () => {
  it.each([
    ['GET', '/items', { route: AdminRoute.listItems }],
    ['GET', '/items/', { route: AdminRoute.listItems }],
    ['GET', '/items/acme/refund-1', { route: AdminRoute.showItem, tenantId: 'acme', operationId: 'refund-1' }],
    ['GET', '/items/acme/a/b/c', { route: AdminRoute.showItem, tenantId: 'acme', operationId: 'a/b/c' }],
    ['GET', '/items/acme/a%2Fb', { route: AdminRoute.showItem, tenantId: 'acme', operationId: 'a/b' }],
    ['POST', '/items/acme/refund-1/resolve', { route: AdminRoute.resolveItem, operationId: 'refund-1' }],
    ['POST', '/items/acme/refund-1/retry', { route: AdminRoute.retryItem, operationId: 'refund-1' }],
    ['POST', '/items/acme/refund-1/cancel', { route: AdminRoute.cancelItem, operationId: 'refund-1' }],
    ['POST', '/items/acme/x/retry/retry', { route: AdminRoute.retryItem, operationId: 'x/retry' }],
    ['post', '/dlq/redrive', { route: AdminRoute.redrive }],
    ['POST', '/tenants/acme/erase-payloads', { route: AdminRoute.erasePayloads, tenantId: 'acme' }],
    ['GET', '/audit', { route: AdminRoute.listAudit }],
  ])('%s %s matches', (method, path, expected) => {
    expect(matchRoute(method, path)).toMatchObject({ ok: true, ...expected });
  });

  it.each([
    ['GET', '/', 404],
    ['GET', '/jobs', 404],
    ['GET', '/items/acme', 404],
    ['GET', '/dlq', 404],
    ['GET', '/tenants/acme/erase-payloads/now', 404],
    ['DELETE', '/items', 405],
    ['POST', '/items', 405],
    ['POST', '/items/acme/refund-1', 405],
    ['POST', '/items/acme/refund-1/delete', 405],
    ['PUT', '/items/acme/refund-1', 405],
    ['GET', '/dlq/redrive', 405],
    ['GET', '/tenants/acme/erase-payloads', 405],
    ['POST', '/audit', 405],
  ])('%s %s ▶ %i', (method, path, status) => {
    expect(matchRoute(method, path)).toMatchObject({ ok: false, status });
  });

  it('a malformed percent-escape is a 400 on path', () => {
    const error = expectThrown(() => matchRoute('GET', '/items/acme/%E0%A4%A'), InvalidInputError);
    expect(error.issues).toEqual([expect.objectContaining({ path: 'path' })]);
  });
});
