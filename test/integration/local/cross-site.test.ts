import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningLocalStack } from '../../../infra/local/stack.js';
import { browserMissing, launchChromium } from '../../support/browser.js';
import { startQuietStack } from '../../support/quiet-stack.js';

/** What a browser puts on a request a page of another site makes (fetch or form, no preflight). */
const FROM_ANOTHER_SITE = {
  origin: 'http://evil.example',
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'no-cors',
};

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request exactly as given (Host included): what a browser, or a DNS-rebound page, would send. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port: Number(target.port), method, path: `${target.pathname}${target.search}`, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const hostOf = (url: string) => new URL(url).host;

/** Any SigV4-shaped Authorization (with its X-Amz-Date): dynalite checks presence and shape, never the signature. */
const AUTHORIZATION =
  'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00';

const AMZ_DATE = '20260101T000000Z';

/** A DynamoDB ListTables call as the browser sends it after a page's fetch (the SDK sends the same, without Origin). */
const listTables = (endpoint: string, headers: Record<string, string>) =>
  send(
    endpoint,
    'POST',
    {
      host: hostOf(endpoint),
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      authorization: AUTHORIZATION,
      'x-amz-date': AMZ_DATE,
      ...headers,
    },
    '{}',
  );

/** An SQS ListQueues call (JSON protocol). */
const listQueues = (endpoint: string, headers: Record<string, string>) =>
  send(
    endpoint,
    'POST',
    {
      host: hostOf(endpoint),
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'AmazonSQS.ListQueues',
      ...headers,
    },
    '{}',
  );

describe('the local stack obeys no web page: cross-site requests to the admin API and the engines are refused', () => {
  let stack: RunningLocalStack;
  let admin: string;
  let dynamodb: string;
  let sqs: string;
  /** The audit actions the admin API recorded so far (each mutating route writes one). */
  const auditActions = async () => {
    const answer = await send(`${admin}/audit?limit=100`, 'GET', { host: hostOf(admin) });
    return (JSON.parse(answer.body).records as Array<{ action: string }>).map((record) => record.action);
  };

  beforeAll(async () => {
    stack = await startQuietStack('.local/cross-site-test');
    admin = stack.state.endpoints.admin;
    dynamodb = stack.state.endpoints.dynamodb;
    sqs = stack.state.endpoints.sqs;
  });
  afterAll(() => stack?.stop());

  it.each([
    ['/dlq/redrive', '{}'],
    ['/fences/raise', '{"above":5,"reason":"from a web page"}'],
    ['/tenants/acme/erase-payloads', '{"reason":"from a web page"}'],
    ['/items/acme/op-1/cancel', '{"reason":"from a web page"}'],
  ])('a text/plain POST %s from another site is refused before anything runs', async (path, body) => {
    // act
    const crossSite = await send(
      `${admin}${path}`,
      'POST',
      {
        host: hostOf(admin),
        'content-type': 'text/plain;charset=UTF-8',
        ...FROM_ANOTHER_SITE,
      },
      body,
    );
    const withoutOrigin = await send(
      `${admin}${path}`,
      'POST',
      {
        host: hostOf(admin),
        'content-type': 'text/plain;charset=UTF-8',
      },
      body,
    );

    // assert
    expect(crossSite.status).toBe(403);
    expect(withoutOrigin.status).toBe(415);
    expect(crossSite.headers['access-control-allow-origin']).toBeUndefined();
    expect(await auditActions()).toEqual([]);
  });

  it('DNS rebinding (a foreign Host) cannot read /items or /audit: 421', async () => {
    for (const path of ['/items?state=unknown', '/audit']) {
      const answer = await send(`${admin}${path}`, 'GET', { host: `evil.example:${new URL(admin).port}` });
      expect(answer.status).toBe(421);
      expect(answer.body).not.toContain('records');
    }
  });

  it('the admin API still serves a JSON POST from a program on this machine (no Origin, its own Host)', async () => {
    const answer = await send(
      `${admin}/dlq/redrive`,
      'POST',
      { host: hostOf(admin), 'content-type': 'application/json' },
      '{}',
    );

    expect(answer.status).toBe(200);
    expect(await auditActions()).toEqual(['redrive']);
  });

  it.each([
    ['DynamoDB ListTables', () => listTables(dynamodb, FROM_ANOTHER_SITE)],
    ['SQS ListQueues', () => listQueues(sqs, FROM_ANOTHER_SITE)],
    [
      'a DynamoDB CORS preflight',
      () =>
        send(dynamodb, 'OPTIONS', {
          host: hostOf(dynamodb),
          origin: 'http://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-amz-target',
        }),
    ],
    ['DynamoDB under a rebinding name', () => listTables(dynamodb, { host: `evil.example:${new URL(dynamodb).port}` })],
    ['SQS under a rebinding name', () => listQueues(sqs, { host: `evil.example:${new URL(sqs).port}` })],
  ])('%s from a web page is refused, with no CORS grant', async (_name, call) => {
    const answer = await call();

    expect([403, 421]).toContain(answer.status);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.body).not.toContain(stack.resources.jobsTable);
  });

  it('the engines answer the SDK as before: the same calls without Origin, on their own Host', async () => {
    const tables = await listTables(dynamodb, {});
    const queues = await listQueues(sqs, {});

    expect(tables.status).toBe(200);
    expect(JSON.parse(tables.body).TableNames).toContain(stack.resources.jobsTable);
    expect(queues.status).toBe(200);
    expect(queues.body).toContain(stack.resources.queueUrl.split('/').pop());
  });
});

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED cross-site browser tests: ${missing}`);

describe.skipIf(missing !== undefined)('a page of another site in a real browser (Debian chromium)', () => {
  let stack: RunningLocalStack;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;

  beforeAll(async () => {
    stack = await startQuietStack('.local/cross-site-browser-test');
    // Another origin on this machine: a page the developer happens to have open.
    attacker = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>innocent page</title>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => attacker?.close(() => resolve()));
    await stack?.stop();
  });

  it('its no-cors text/plain POST to /dlq/redrive does nothing, and its fetch of ListTables is blocked', async () => {
    const page = await browser.newPage();
    await page.goto(attackerUrl);
    const admin = stack.state.endpoints.admin;
    const dynamodb = stack.state.endpoints.dynamodb;

    const outcome = await page.evaluate(
      async ({ admin, dynamodb, authorization, amzDate }) => {
        await fetch(`${admin}/dlq/redrive`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: '{}',
        }).catch(() => undefined);
        try {
          const answer = await fetch(dynamodb, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-amz-json-1.0',
              'x-amz-target': 'DynamoDB_20120810.ListTables',
              authorization,
              'x-amz-date': amzDate,
            },
            body: '{}',
          });
          return `read ${answer.status}: ${await answer.text()}`;
        } catch {
          return 'blocked';
        }
      },
      { admin, dynamodb, authorization: AUTHORIZATION, amzDate: AMZ_DATE },
    );

    expect(outcome).toBe('blocked');
    const audit = await send(`${admin}/audit`, 'GET', { host: hostOf(admin) });
    expect(JSON.parse(audit.body).records).toEqual([]);
  });
});
