import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer } from '../../../infra/console/server.js';
import { parseIdentity } from '../../../lib/identity.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';

/** One raw HTTP exchange (node's fetch may not set Host), answering status and body. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += String(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

describe('console server: loopback only, actions only from its own page', () => {
  let admin: AdminFixture;
  let server: Awaited<ReturnType<typeof startConsoleServer>>;
  let token: string;
  let origin: string;

  beforeAll(async () => {
    admin = await createAdminFixture('console-security');
    server = await startConsoleServer(
      {
        target: { kind: 'local', label: 'test', jobsTable: admin.tables.jobsTable },
        admin: admin.deps,
        actor: 'tester (console)',
      },
      { port: 0 },
    );
    origin = server.url.replace(/\/$/, '');
    const page = await send(server.url, { headers: { host: new URL(server.url).host } });
    token = /name="leasefence-token" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
  });
  afterAll(async () => {
    await server?.stop();
    await admin?.close();
  });

  const resolveUrl = (operationId: string) => `${origin}/api/items/tenant-a/${operationId}/resolve`;
  const body = JSON.stringify({ to: 'succeeded', reason: 'checked with the provider' });
  const json = { 'content-type': 'application/json' };

  it('its page refuses another site (a foreign Origin, a cross-site fetch) and a `//` target is a 400, not a host', async () => {
    const host = new URL(server.url).host;
    const port = Number(new URL(server.url).port);
    const raw = (path: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const outgoing = request({ host: '127.0.0.1', port, path, headers }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        outgoing.on('error', reject);
        outgoing.end();
      });

    const answers = {
      foreignOrigin: await raw('/', { host, origin: 'http://evil.example' }),
      crossSite: await raw('/', { host, 'sec-fetch-site': 'cross-site' }),
      addressBar: await raw('/', { host, 'sec-fetch-site': 'none' }),
      empty: await raw('//', { host }),
      asHost: await raw('//x/api/target', { host }),
    };

    expect(answers).toEqual({ foreignOrigin: 403, crossSite: 403, addressBar: 200, empty: 400, asHost: 400 });
  });

  it('listens on 127.0.0.1 and serves the page with a token, a CSP and no framing', async () => {
    // act
    const page = await send(server.url, { headers: { host: new URL(server.url).host } });

    // assert
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self' 'sha256-");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.each([
    ['a cross-origin POST with the token', { origin: 'http://evil.example', 'x-leasefence-console-token': 'TOKEN' }],
    ['a same-site but cross-origin POST', { 'sec-fetch-site': 'same-site', 'x-leasefence-console-token': 'TOKEN' }],
    ['a POST without the token', {}],
    ['a POST with a wrong token', { 'x-leasefence-console-token': 'x'.repeat(43) }],
  ])('refuses %s with 403 and changes nothing', async (_name, headers) => {
    // prepare
    const item = await admin.seed('unknown');
    const withToken = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, value === 'TOKEN' ? token : value]),
    );

    // act
    const answer = await send(resolveUrl(item.operationId), {
      method: 'POST',
      headers: { ...json, host: new URL(server.url).host, ...withToken },
      body,
    });

    // assert
    expect(answer.status).toBe(403);
    expect(
      await admin.store.get(parseIdentity({ tenantId: item.tenantId, operationId: item.operationId })),
    ).toMatchObject({
      state: 'unknown',
      fence: item.fence,
    });
  });

  it('refuses a request whose Host is not its loopback name (DNS rebinding) with 421', async () => {
    // act
    const answer = await send(`${origin}/api/counts`, {
      headers: { host: 'attacker.example', 'x-leasefence-console-token': token },
    });

    // assert
    expect(answer.status).toBe(421);
  });

  it('accepts its own page: same origin, the token; the action is the audited admin operation', async () => {
    // prepare
    const item = await admin.seed('unknown');

    // act
    const answer = await send(resolveUrl(item.operationId), {
      method: 'POST',
      headers: {
        ...json,
        host: new URL(server.url).host,
        origin,
        'sec-fetch-site': 'same-origin',
        'x-leasefence-console-token': token,
      },
      body,
    });

    // assert
    expect(answer.status).toBe(200);
    const stored = await admin.store.get(parseIdentity({ tenantId: item.tenantId, operationId: item.operationId }));
    expect(stored).toMatchObject({ state: 'succeeded', fence: item.fence + 1 });
    expect(stored?.audit).toEqual([
      expect.objectContaining({
        actor: 'tester (console)',
        action: 'resolve_succeeded',
        reason: 'checked with the provider',
      }),
    ]);
  });
});
