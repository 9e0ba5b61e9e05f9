import { connect } from 'node:net';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalAdminServer, startAdminServer } from '../../../infra/local/admin-server.js';
import { WorkState } from '../../../lib/states.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';

/** Sends one request byte for byte over TCP (any method, any request target) and returns the answer's status (0: none). */
function exchange(port: number, method: string, target: string, headers: Headers, body: string) {
  return new Promise<number>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const lines = [`${method} ${target} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`)];
    lines.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close', '', body);
    // Written, not ended: the server closes after its answer (connection: close); a half-closed socket could be
    // dropped before a slow answer. The timer is a hang detector, not a verdict.
    socket.on('connect', () => socket.write(lines.join('\r\n')));
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => resolve(0));
    socket.on('close', () =>
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'))?.[1] ?? 0)),
    );
  });
}

/** Request headers in order, as sent. */
type Headers = Array<[string, string]>;

/** Paths of every admin route (the fixture has a row for fz/op-1). */
const ROUTE_PATHS = [
  '/health',
  '/items',
  '/items/fz/op-1',
  '/items/fz/op-1/cancel',
  '/items/fz/op-1/retry',
  '/dlq/redrive',
  '/tenants/fz/erase-payloads',
  '/audit',
  '/fences/raise',
  '/counts',
] as const;

/** A short segment of characters a request line may carry. */
const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{0,8}$/);

/** A request target that is not a plain path, built from a real route so it would reach one if read leniently. */
const malformedTarget: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...ROUTE_PATHS), segment, fc.nat({ max: 3 }))
  .chain(([path, extra, slashes]) =>
    fc.constantFrom(
      `/${'/'.repeat(slashes)}${path}`,
      `//${extra || 'x'}${path}`,
      '//',
      `http://${extra || 'evil'}.example${path}`,
      `http://127.0.0.1${path}`,
      '*',
      path.slice(1),
      `${path}/..`,
      `${path}/.`,
      `/${extra}/..${path}`,
      `${path}/%2e%2E`,
      `${path}%2F${extra}`,
      `${path}%5c${extra}`,
      `${path}\\${extra}`,
      `${path}#${extra}`,
      `//${path}?limit=1`,
    ),
  );

/** Methods, real and not (the parser refuses unknown ones itself). */
const anyMethod = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'get',
);

/** Methods that match no POST route and change nothing on a GET route. */
const harmlessMethod = fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND');

/** Headers a program sends (its own Host, no Origin, a JSON body), with an optional actor. */
function programHeaders(port: number): fc.Arbitrary<Headers> {
  return fc
    .tuple(fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`), fc.option(segment, { nil: undefined }))
    .map(([host, actor]) => [
      ['host', host],
      ['content-type', 'application/json'],
      ...(actor !== undefined ? ([['x-leasefence-actor', actor]] as Headers) : []),
    ]);
}

/** Headers a web page, a rebinding name or a careless client sends: at least one the guard refuses. */
function hostileHeaders(port: number): fc.Arbitrary<Headers> {
  const own = `127.0.0.1:${port}`;
  return fc.oneof(
    fc.constantFrom(`evil.example:${port}`, `127.0.0.1:${port + 1}`, '', `[::1]:${port}`).map(
      (host): Headers => [
        ['host', host],
        ['content-type', 'application/json'],
      ],
    ),
    fc.constantFrom('http://evil.example', 'null', `http://localhost:${port}`, `https://${own}`).map(
      (origin): Headers => [
        ['host', own],
        ['origin', origin],
        ['content-type', 'application/json'],
      ],
    ),
    fc.constantFrom('cross-site', 'same-site').map(
      (site): Headers => [
        ['host', own],
        ['sec-fetch-site', site],
        ['content-type', 'application/json'],
      ],
    ),
    fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x').map(
      (type): Headers => [
        ['host', own],
        ['content-type', type],
      ],
    ),
  );
}

const bodies = fc.constantFrom('', '{}', '{"reason":"fuzz"}', '{"above":5,"reason":"fuzz"}', 'not json', '[]');

/** Everything a request could change: the jobs and payloads tables, and both queues' message counts. */
async function snapshot(fixture: AdminFixture): Promise<string> {
  const tables = [];
  for (const table of [fixture.tables.jobsTable, fixture.tables.payloadsTable]) {
    const items = (await fixture.client.send(new ScanCommand({ TableName: table, ConsistentRead: true }))).Items ?? [];
    tables.push(items.map((item) => JSON.stringify(item)).sort());
  }
  const queues = [];
  for (const QueueUrl of [fixture.queueUrl, fixture.dlqUrl]) {
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    queues.push(Attributes);
  }
  return JSON.stringify({ tables, queues });
}

describe('the local admin server answers every malformed request with a 4xx, never a 500, and changes nothing', () => {
  let fixture: AdminFixture;
  let server: LocalAdminServer;

  beforeAll(async () => {
    fixture = await createAdminFixture('local-admin-fuzz');
    await fixture.seed(WorkState.failed_terminal, 'fz');
    await fixture.sqs.send(new SendMessageCommand({ QueueUrl: fixture.dlqUrl, MessageBody: 'dead-1' }));
    server = await startAdminServer(fixture.deps, 0);
  });
  afterAll(async () => {
    await server?.stop();
    await fixture?.close();
  });

  it('the targets the issue found: `//`, `//x/health` (read as host x) and their kin are a 400', async () => {
    const own: Headers = [['host', `127.0.0.1:${server.port}`]];
    const answers: Record<string, number> = {};
    for (const target of ['//', '//x/health', '//health', '///health', 'http://x/health', '*', 'health']) {
      answers[target] = await exchange(server.port, 'GET', target, own, '');
    }

    expect(answers).toEqual({
      '//': 400,
      '//x/health': 400,
      '//health': 400,
      '///health': 400,
      'http://x/health': 400,
      '*': 400,
      health: 400,
    });
    expect(await exchange(server.port, 'GET', '/health', own, '')).toBe(200);
  });

  it('fuzzed targets, methods, headers and bodies: 0 answers are 500, a malformed path from a program is a 400', async () => {
    const before = await snapshot(fixture);
    const statuses = new Map<number, number>();
    const wrong: string[] = [];
    const request = fc.oneof(
      // A malformed target, any method: a 400 from the guard-passing program, a refusal from anyone else.
      fc.record({
        kind: fc.constant('malformed, program'),
        method: anyMethod,
        target: malformedTarget,
        headers: programHeaders(server.port),
        body: bodies,
      }),
      fc.record({
        kind: fc.constant('malformed, hostile'),
        method: anyMethod,
        target: malformedTarget,
        headers: hostileHeaders(server.port),
        body: bodies,
      }),
      // A real route: a method that changes nothing, or a POST the guard refuses.
      fc.record({
        kind: fc.constant('route, odd method'),
        method: harmlessMethod,
        target: fc.constantFrom(...ROUTE_PATHS),
        headers: programHeaders(server.port),
        body: bodies,
      }),
      fc.record({
        kind: fc.constant('route, hostile'),
        method: fc.constant('POST'),
        target: fc.constantFrom(...ROUTE_PATHS),
        headers: hostileHeaders(server.port),
        body: bodies,
      }),
    );

    await fc.assert(
      fc.asyncProperty(request, async ({ kind, method, target, headers, body }) => {
        const status = await exchange(server.port, method, target, headers, body);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const expected = kind === 'malformed, program' ? [400] : undefined;
        if (status === 0 || status >= 500 || (expected !== undefined && !expected.includes(status))) {
          wrong.push(`${kind}: ${method} ${target} ${JSON.stringify(headers)} ▶ ${status}`);
        }
      }),
      { numRuns: 600 },
    );

    // assert: no 500 (nor a dropped connection), every malformed path a 400, and nothing changed anywhere
    expect(wrong).toEqual([]);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(statuses.get(400)).toBeGreaterThan(100);
    expect(await snapshot(fixture)).toBe(before);
  });
});
