import { describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { hasControlCharacter } from '../../../lib/internal/free-text.js';
import { createSqsClient } from '../../../lib/sqs-client.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';

/** Deps on a closed port: every case here must be answered before any request leaves the process. */
const UNREACHABLE = 'http://127.0.0.1:9';
const deps: AdminDeps = {
  store: new OperatorStore({
    client: createDocumentClient({ endpoint: UNREACHABLE, maxAttempts: 1 }),
    tableName: 'never-called',
  }),
  sqs: createSqsClient({ endpoint: UNREACHABLE, maxAttempts: 1 }),
  queueUrl: `${UNREACHABLE}/000000000000/never`,
  payloadsTable: 'never-called',
};
const actor = 'arn:aws:iam::123456789012:role/ops';
const item = '/items/acme/refund-1';

describe('admin router: validation before any I/O', () => {
  it.each([
    ['GET', '/items', {}, undefined, 'state'],
    ['GET', '/items', { state: 'done' }, undefined, 'state'],
    ['GET', '/items', { state: 'succeeded' }, undefined, 'tenant'],
    ['GET', '/items', { state: 'claimed', olderThanSeconds: '1.5' }, undefined, 'olderThanSeconds'],
    ['GET', '/items', { state: 'succeeded', tenant: 'acme', olderThanSeconds: '60' }, undefined, 'olderThan'],
    ['GET', '/counts', { tenant: 'a#b' }, undefined, 'tenant'],
    ['GET', '/health', { verbose: '1' }, undefined, 'verbose'],
    ['GET', '/items', { state: 'unknown', limit: '0' }, undefined, 'limit'],
    ['GET', '/items', { state: 'unknown', limit: '101' }, undefined, 'limit'],
    ['GET', '/items', { state: 'unknown', limit: '1.5' }, undefined, 'limit'],
    ['GET', '/items', { state: 'unknown', tenant: 'a#b' }, undefined, 'tenant'],
    ['GET', '/items', { state: 'unknown', cursor: '!!!' }, undefined, 'cursor'],
    ['GET', '/items', { state: 'unknown', sort: 'desc' }, undefined, 'sort'],
    ['GET', '/items', { state: 'unknown' }, '{"x":1}', 'body'],
    ['GET', '/items/a#b/refund-1', {}, undefined, 'tenantId'],
    ['GET', '/items/acme/-starts-with-dash', {}, undefined, 'operationId'],
    ['GET', item, { verbose: '1' }, undefined, 'verbose'],
    ['POST', `${item}/resolve`, {}, '{"to":"succeeded"}', 'reason'],
    ['POST', `${item}/resolve`, {}, '{"to":"succeeded","reason":"   "}', 'reason'],
    ['POST', `${item}/resolve`, {}, '{"to":"done","reason":"r"}', 'to'],
    ['POST', `${item}/resolve`, {}, '{"to":"succeeded","reason":"r","outcomeCode":"has space"}', 'outcomeCode'],
    ['POST', `${item}/resolve`, {}, '{"to":"queued","reason":"r","outcomeCode":"ok"}', 'outcomeCode'],
    ['POST', `${item}/resolve`, {}, '{"to":"succeeded","reason":"r","actor":"arn:x"}', 'actor'],
    ['POST', `${item}/resolve`, {}, '[1,2]', '(root)'],
    ['POST', `${item}/retry`, {}, 'not json', 'body'],
    ['POST', `${item}/retry`, {}, undefined, 'reason'],
    ['POST', `${item}/cancel`, {}, '{"reason":5}', 'reason'],
    ['POST', `${item}/cancel`, { force: 'true' }, '{"reason":"r"}', 'force'],
    ['POST', '/dlq/redrive', {}, '{"max":1001}', 'max'],
    ['POST', '/dlq/redrive', {}, '{"max":"10"}', 'max'],
    ['POST', '/tenants/acme/erase-payloads', {}, '{}', 'reason'],
    ['POST', '/tenants/acme/erase-payloads', {}, '{"reason":"r","max":0}', 'max'],
    ['POST', '/tenants/a%23b/erase-payloads', {}, '{"reason":"r"}', 'tenantId'],
    ['POST', '/tenants/acme/erase-payloads', {}, '{"reason":"r","tenantId":"globex"}', 'tenantId'],
    ['POST', '/fences/raise', {}, '{"above":-1,"reason":"r"}', 'above'],
    ['POST', '/fences/raise', {}, '{"above":5,"reason":"r","max":0}', 'max'],
    ['POST', '/fences/raise', {}, '{"above":5,"reason":"r","actor":"arn:x"}', 'actor'],
    ['POST', '/fences/raise', {}, '{"reason":"r","cursor":"abc"}', 'epoch'],
    ['POST', '/fences/raise', {}, '{"reason":"r","recordTables":["a b"]}', 'recordTables.0'],
    ['GET', '/audit', { limit: 'x' }, undefined, 'limit'],
  ])('%s %s %j %s ▶ 400 naming %s', async (method, path, query, body, field) => {
    // Act
    const reply = await handleAdminRequest(
      { method, path, query, ...(body !== undefined ? { body } : {}), actor },
      deps,
    );

    // Assert
    expect(reply.statusCode).toBe(400);
    expect(reply.body.error).toBe('invalid_input');
    expect(JSON.stringify(reply.body)).toContain(field);
  });

  it.each([
    ['an ANSI screen clear', '\u001b[2J\u001b[31mFAKE: resolved by root'],
    ['a carriage return', 'ok\rresolved by root'],
    ['a newline', 'first line\nsecond line'],
    ['a C1 control (CSI)', 'x\u009b31m'],
    ['a right-to-left override', 'harmless\u202eexe.txt'],
  ])('a reason with %s is a 400 on reason for every audited route', async (_name, reason) => {
    const body = JSON.stringify({ reason });
    for (const [path, payload] of [
      [`${item}/resolve`, JSON.stringify({ to: 'succeeded', reason })],
      [`${item}/retry`, body],
      [`${item}/cancel`, body],
      ['/tenants/acme/erase-payloads', body],
    ] as const) {
      const reply = await handleAdminRequest({ method: 'POST', path, body: payload, actor }, deps);
      expect(reply.statusCode, path).toBe(400);
      expect(reply.body.issues, path).toEqual([
        { path: 'reason', message: 'reason must not contain control characters' },
      ]);
    }
  });

  it('an actor with control characters is a 400 on actor', async () => {
    const reply = await handleAdminRequest(
      { method: 'POST', path: `${item}/cancel`, body: '{"reason":"r"}', actor: 'ops\u001b[8m' },
      deps,
    );
    expect(reply.statusCode).toBe(400);
    expect(reply.body.issues).toEqual([{ path: 'actor', message: 'actor must not contain control characters' }]);
  });

  it('ordinary text passes the free-text rule: accents, emoji, quotes, tabs are refused only as controls', () => {
    expect(hasControlCharacter('Rückerstattung bestätigt – 👍 "ok" (ticket #42)')).toBe(false);
    expect(hasControlCharacter('a\tb')).toBe(true);
    expect(hasControlCharacter('\u0000')).toBe(true);
    expect(hasControlCharacter('\u007f')).toBe(true);
    expect(hasControlCharacter('\u2066isolate')).toBe(true);
  });

  it('an empty caller is a 400 on actor, never an anonymous action', async () => {
    const reply = await handleAdminRequest(
      { method: 'POST', path: `${item}/cancel`, body: '{"reason":"r"}', actor: '' },
      deps,
    );
    expect(reply.statusCode).toBe(400);
    expect(reply.body.issues).toEqual([expect.objectContaining({ path: 'actor' })]);
  });

  it('unknown routes are 404 and wrong methods 405, with no subject to log', async () => {
    const notFound = await handleAdminRequest({ method: 'GET', path: '/nope', actor }, deps);
    const notAllowed = await handleAdminRequest({ method: 'DELETE', path: item, actor }, deps);
    expect(notFound).toMatchObject({ statusCode: 404, body: { error: 'route_not_found' } });
    expect(notAllowed).toMatchObject({ statusCode: 405, body: { error: 'method_not_allowed' } });
  });

  it('redrive without a configured DLQ is a 500 that says so', async () => {
    const reply = await handleAdminRequest({ method: 'POST', path: '/dlq/redrive', body: '{}', actor }, deps);
    expect(reply).toMatchObject({ statusCode: 500, body: { error: 'configuration' } });
  });
});
