import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalAdminServer, startAdminServer } from '../../infra/local/admin-server.js';
import type { AdminDeps } from '../../lib/admin/deps.js';
import { pathProblem } from '../../lib/admin/request-target.js';
import { createDocumentClient } from '../../lib/document-client.js';
import { createSqsClient } from '../../lib/sqs-client.js';
import { OperatorStore } from '../../lib/store/operator/operator-store.js';

/** Deps on a closed port: a request that reached an operation would answer 500, never 400. */
const UNREACHABLE = 'http://127.0.0.1:9';
const deps: AdminDeps = {
  store: new OperatorStore({
    client: createDocumentClient({ endpoint: UNREACHABLE, maxAttempts: 1 }),
    tableName: 'never-called',
  }),
  sqs: createSqsClient({ endpoint: UNREACHABLE, maxAttempts: 1 }),
  queueUrl: `${UNREACHABLE}/000000000000/never`,
  deadLetterQueueUrl: `${UNREACHABLE}/000000000000/never-dlq`,
  payloadsTable: 'never-called',
};

/** Sends the path byte for byte (fetch and URL would normalise the dot segments away first). */
function rawRequest(port: number, method: string, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const headers = method === 'POST' ? { 'content-type': 'application/json' } : {};
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(method === 'POST' ? '{}' : undefined);
  });
}

describe('local admin server: paths that could reach another route', () => {
  let server: LocalAdminServer;
  beforeAll(async () => {
    server = await startAdminServer(deps, 0);
  });
  afterAll(() => server.stop());

  it.each([
    ['POST', '/items/acme/../../dlq/redrive'],
    ['POST', '/items/acme/%2e%2e/%2E%2E/dlq/redrive'],
    ['GET', '/items/./acme/op-1'],
    ['GET', '/items/acme/op-1/.'],
    ['POST', '/items/acme%2Fop-1/cancel'],
    ['GET', '/items/acme/op%5c1'],
    ['GET', '/items/acme\\op-1'],
  ])('%s %s ▶ 400 naming the path, before any routing', async (method, path) => {
    const reply = await rawRequest(server.port, method, path);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_input', issues: [{ path: 'path' }] });
  });

  it('a plain path is routed as before (an operation id may hold plain slashes)', async () => {
    // 500 from the closed port proves the request reached the operation; 400/404 would mean it did not.
    const redrive = await rawRequest(server.port, 'POST', '/dlq/redrive');
    const show = await rawRequest(server.port, 'GET', '/items/acme/statement/acct-9/2026-01-31');
    expect(redrive.status).toBe(500);
    expect(show.status).toBe(500);
  });

  it('pathProblem names the reason and accepts dots inside a segment', () => {
    expect(pathProblem('/items/acme/v1.2..3')).toBeUndefined();
    expect(pathProblem('/items/acme/..')).toBe('dot segments (. and ..) are not allowed');
    expect(pathProblem('/items/a%2fb')).toBe('encoded slashes and backslashes are not allowed');
    expect(pathProblem('//health')).toBe('the path must start with a single /');
    expect(pathProblem('/items//x')).toBe('empty path segments (// or a trailing /) are not allowed');
    expect(pathProblem('/')).toBeUndefined();
  });
});
