import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy, requestOn } from '../support/fault-proxy.js';
import { ReliabilityReport } from './support/report.js';

/** A stand-in engine: counts the requests it committed and answers each with its sequence number. */
function startUpstream(): Promise<{ endpoint: string; committed: string[]; close(): Promise<void> }> {
  const committed: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      committed.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sequence: committed.length }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        committed,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
  });
}

/** One DynamoDB-shaped POST; resolves with the answer or rejects with the socket error code. */
function send(endpoint: string, operation: string, body: object): Promise<{ status: number; sequence: number }> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: { 'x-amz-target': `DynamoDB_20120810.${operation}`, 'content-type': 'application/x-amz-json-1.0' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            sequence: JSON.parse(Buffer.concat(chunks).toString()).sequence,
          }),
        );
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { code: error.code })));
    request.end(JSON.stringify(body));
  });
}

async function errorCode(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: NodeJS.ErrnoException) => error.code,
  );
}

describe('fault proxy (loopback HTTP proxy that injects network faults per request)', () => {
  const report = new ReliabilityReport(__filename);
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let proxy: FaultProxy;

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await FaultProxy.start(upstream.endpoint);
  });
  afterAll(async () => {
    report.add('faultsInjected', proxy.faultsInjected());
    await report.publish();
    await proxy.stop();
    await upstream.close();
  });

  it('forwards requests unchanged and counts them per operation', async () => {
    const before = upstream.committed.length;

    const answer = await send(proxy.endpoint, 'GetItem', { TableName: 'jobs', Key: { pk: 'a' } });

    expect(answer.status).toBe(200);
    expect(upstream.committed.slice(before)).toEqual([JSON.stringify({ TableName: 'jobs', Key: { pk: 'a' } })]);
    expect(proxy.seen.GetItem).toBeGreaterThanOrEqual(1);
  });

  it('holds a matching request in the network until released; later requests overtake it', async () => {
    let release: () => void = () => {};
    const held = proxy.inject({
      match: requestOn('UpdateItem', 'records', 'late'),
      fault: { kind: 'hold', release: new Promise<void>((resolve) => (release = resolve)) },
    });
    const late = send(proxy.endpoint, 'UpdateItem', { TableName: 'records', write: 'late' });
    while (held.pending() === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    await send(proxy.endpoint, 'UpdateItem', { TableName: 'records', write: 'early' });
    release();
    await late;

    const order = upstream.committed.filter((text) => text.includes('"records"')).map((text) => JSON.parse(text).write);
    expect(order).toEqual(['early', 'late']);
    expect(held.hits()).toBe(1);
    expect(held.pending()).toBe(0);
  });

  it('drops the response of a committed request: the engine has it, the client sees a reset', async () => {
    const drop = proxy.inject({ match: requestOn('PutItem', 'jobs'), fault: { kind: 'drop_response' } });
    const before = upstream.committed.length;

    const code = await errorCode(send(proxy.endpoint, 'PutItem', { TableName: 'jobs', Item: { pk: 'x' } }));

    expect(code).toBe('ECONNRESET');
    expect(upstream.committed.length).toBe(before + 1);
    expect(drop.hits()).toBe(1);
    // The rule fired once (times defaults to 1): the next request passes.
    expect((await send(proxy.endpoint, 'PutItem', { TableName: 'jobs' })).status).toBe(200);
  });

  it('resets a request before forwarding: the engine never sees it', async () => {
    proxy.inject({ match: requestOn('DeleteItem', 'jobs'), fault: { kind: 'reset_request' }, times: 2 });
    const before = upstream.committed.length;

    const codes = [
      await errorCode(send(proxy.endpoint, 'DeleteItem', { TableName: 'jobs' })),
      await errorCode(send(proxy.endpoint, 'DeleteItem', { TableName: 'jobs' })),
    ];

    expect(codes).toEqual(['ECONNRESET', 'ECONNRESET']);
    expect(upstream.committed.length).toBe(before);
  });

  it('refuses connections while closed and serves again on the same port when reopened', async () => {
    const endpoint = proxy.endpoint;
    await proxy.refuseConnections();

    const refused = await errorCode(send(endpoint, 'GetItem', { TableName: 'jobs' }));
    await proxy.acceptConnections();
    const answer = await send(endpoint, 'GetItem', { TableName: 'jobs' });

    expect(refused).toBe('ECONNREFUSED');
    expect(proxy.endpoint).toBe(endpoint);
    expect(answer.status).toBe(200);
  });

  it('delays a request and applies a rule only to requests it matches', async () => {
    const delayed = proxy.inject({ match: requestOn('Query', 'jobs', 'deadline'), fault: { kind: 'delay', ms: 20 } });

    await send(proxy.endpoint, 'Query', { TableName: 'jobs', IndexName: 'parked' });
    await send(proxy.endpoint, 'Query', { TableName: 'jobs', IndexName: 'deadline' });

    expect(delayed.hits()).toBe(1);
  });
});
