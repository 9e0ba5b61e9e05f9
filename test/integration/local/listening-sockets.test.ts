import { readFile, stat } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStackClients, localStackClients } from '../../../infra/local/clients.js';
import { canonicalJson, payloadHash } from '../../../lib/hashing.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { browserMissing, launchChromium } from '../../support/browser.js';
import {
  killAll,
  readState,
  type StackProcess,
  type StackStateFile,
  startStack,
  tempLocalDir,
} from '../../support/cli-runner.js';
import {
  socketListingMissing,
  type TcpListener,
  tcpListenersOfTree,
  unixListenersOfTree,
} from '../../support/listening-sockets.js';

/** The attacking page's script (plain browser JavaScript, served by the attacker's server). */
const SCANNING_PAGE = fileURLToPath(new URL('./fixtures/scanning-page.js', import.meta.url));

/** What the scanning page defines on its window. */
interface ScanningPage {
  attack(args: {
    ports: number[];
    targets: number[];
    jobsTable: string;
    topic: string;
    topicArn: string;
    queueArn: string;
    envelope: string;
  }): Promise<{ open: number[]; reads: Array<{ port: number; what: string; status: number; text: string }> }>;
}

/** Ports either side of each listening port the attacking page scans (the page scanned 3,001 in 5 s). */
const WINDOW = 16;

/** What an attacker knows without reading anything: the fixed local names (infra/local/resources.ts). */
const JOBS_QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:leasefence-jobs';
const TOPIC = 'evil';
const TOPIC_ARN = `arn:aws:sns:us-east-1:000000000000:${TOPIC}`;
const EVIL_TENANT = 'evil';

/** A job message as the producer sends it, carrying its body: what the page published through SNS. */
function injectedEnvelope(): string {
  const payload = { merchantId: 'evil-merchant', amount: 999, currency: 'EUR' };
  return JSON.stringify({
    v: 1,
    kind: 'job',
    tenantId: EVIL_TENANT,
    operationId: 'injected-1',
    jobType: 'refund-settlement',
    payloadHash: payloadHash(payload),
    payload: { body: JSON.parse(canonicalJson(payload)) },
  });
}

interface RawAnswer {
  status: number;
  body: string;
}

/** Sends one request exactly as given (Host included) to 127.0.0.1:`port`. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Requests a page could make a browser send: a read, an engine call, a form POST (SNS's query protocol). */
const PROBES = [
  { method: 'GET', path: '/', headers: {}, body: '' },
  { method: 'GET', path: '/_fauxqs/queues', headers: {}, body: '' },
  {
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
    body: '{}',
  },
  {
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `Action=CreateTopic&Name=${TOPIC}`,
  },
] as const;

/** The ways a page shows itself: its Origin, a cross-site Sec-Fetch-Site, a rebinding name in Host. */
function foreignHeaders(port: number): Array<[string, Record<string, string>]> {
  const own = `127.0.0.1:${port}`;
  return [
    ['foreign Origin', { host: own, origin: 'http://evil.example' }],
    ['cross-site Sec-Fetch-Site', { host: own, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }],
    ['foreign Host', { host: `evil.example:${port}` }],
  ];
}

/** Every port to scan: each listening port with WINDOW ports either side, in order. */
function scanPorts(listeners: readonly TcpListener[], exclude: number): number[] {
  const ports = new Set<number>();
  for (const { port } of listeners) {
    for (let candidate = port - WINDOW; candidate <= port + WINDOW; candidate += 1) {
      if (candidate > 0 && candidate < 65_536 && candidate !== exclude) ports.add(candidate);
    }
  }
  return [...ports].sort((a, b) => a - b);
}

const noProc = socketListingMissing();
if (noProc) console.log(`[leasefence tests] SKIPPED listening-socket tests: ${noProc}`);
const noBrowser = browserMissing();
if (noBrowser) console.log(`[leasefence tests] SKIPPED the scanning page in chromium: ${noBrowser}`);

describe.skipIf(noProc !== undefined)('no listener of `npm start` answers a web page', () => {
  let stack: StackProcess;
  let local: { dir: string; remove(): Promise<void> };
  let state: StackStateFile;
  let listeners: TcpListener[];
  let clients: LocalStackClients;

  /** What the stack holds that names the evil tenant or topic: rows, topics, subscriptions, audit records. */
  const evidence = async () => {
    const rows: string[] = [];
    for (const table of [state.tables.jobs, state.tables.payloads, state.tables.examples]) {
      const scan = await clients.documentClient.send(new ScanCommand({ TableName: table }));
      for (const item of scan.Items ?? []) if (JSON.stringify(item).includes(EVIL_TENANT)) rows.push(table);
    }
    const sqsPort = Number(new URL(state.endpoints.sqs).port);
    const form = { host: `127.0.0.1:${sqsPort}`, 'content-type': 'application/x-www-form-urlencoded' };
    const topics = await send(sqsPort, 'POST', '/', form, 'Action=ListTopics');
    const subscriptions = await send(sqsPort, 'POST', '/', form, 'Action=ListSubscriptions');
    const adminPort = Number(new URL(state.endpoints.admin).port);
    const audit = await send(adminPort, 'GET', '/audit', { host: `127.0.0.1:${adminPort}` });
    return {
      rows,
      topics: topics.body.match(/<TopicArn>/g)?.length ?? 0,
      subscriptions: subscriptions.body.match(/<SubscriptionArn>/g)?.length ?? 0,
      audit: (JSON.parse(audit.body) as { records: unknown[] }).records.length,
    };
  };

  beforeAll(async () => {
    local = await tempLocalDir();
    stack = startStack(
      [
        '--memory',
        '--local-dir',
        local.dir,
        '--dynamodb-port',
        '0',
        '--sqs-port',
        '0',
        '--admin-port',
        '0',
        '--console-port',
        '0',
        '--pollers',
        '1',
      ],
      {},
      'npm',
    );
    await stack.waitFor(/Stop with Ctrl-C/, 120_000);
    state = await readState(local.dir);
    listeners = await tcpListenersOfTree(stack.child.pid as number);
    clients = await localStackClients({ localDir: local.dir });
  });
  afterAll(async () => {
    clients?.destroy();
    await stack?.stop('SIGINT', 30_000);
    killAll();
    await local?.remove();
  });

  it('the listing sees the stack: every endpoint of its state file is a listening socket of its process tree', () => {
    const listed = listeners.map((listener) => listener.port);
    for (const endpoint of [
      state.endpoints.dynamodb,
      state.endpoints.sqs,
      state.endpoints.admin,
      state.endpoints.console,
    ]) {
      expect(listed).toContain(Number(new URL(endpoint).port));
    }
  });

  it('every listening TCP socket refuses a foreign Origin, a cross-site Sec-Fetch-Site and a foreign Host', async () => {
    const answered: string[] = [];
    for (const { port, address } of listeners) {
      expect(address).toMatch(/^127\.0\.0\.1$|^0:0:0:0:0:0:0:1$/);
      for (const probe of PROBES) {
        for (const [name, headers] of foreignHeaders(port)) {
          const answer = await send(port, probe.method, probe.path, { ...probe.headers, ...headers }, probe.body);
          if (answer.status !== 403 && answer.status !== 421) {
            answered.push(`${port} ${probe.method} ${probe.path} with a ${name}: ${answer.status}`);
          }
        }
      }
    }

    expect(answered).toEqual([]);
    expect(await evidence()).toEqual({ rows: [], topics: 0, subscriptions: 0, audit: 0 });
  });

  it('the engines listen on Unix sockets in folders only this user can open', async () => {
    const sockets = (await unixListenersOfTree(stack.child.pid as number)).filter((socket) =>
      socket.path.includes('leasefence-engine-'),
    );

    expect(sockets).toHaveLength(2);
    for (const socket of sockets) expect((await stat(dirname(socket.path))).mode & 0o077).toBe(0);
  });

  describe.skipIf(noBrowser !== undefined)('a page on another loopback port, in chromium, as the attack ran', () => {
    let browser: Browser;
    let attacker: Server;
    let attackerPort: number;

    beforeAll(async () => {
      const script = await readFile(SCANNING_PAGE, 'utf8');
      attacker = createServer((incoming, response) => {
        if (incoming.url === '/scan.js') {
          response.writeHead(200, { 'content-type': 'text/javascript' });
          response.end(script);
          return;
        }
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>innocent page</title><script src="/scan.js"></script>');
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
      attackerPort = (attacker.address() as AddressInfo).port;
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await new Promise<void>((resolve) => attacker?.close(() => resolve()));
    });

    it('scans every port around the stack, reads nothing, and its form POSTs create and run nothing', async () => {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${attackerPort}/`);
      const ports = scanPorts(listeners, attackerPort);

      // act: the page finds what answers, reads with CORS, then posts blind forms (SNS subscribe-and-publish)
      const outcome = await page.evaluate((args) => (globalThis as unknown as ScanningPage).attack(args), {
        ports,
        targets: listeners.map((listener) => listener.port),
        jobsTable: state.tables.jobs,
        topicArn: TOPIC_ARN,
        queueArn: JOBS_QUEUE_ARN,
        envelope: injectedEnvelope(),
        topic: TOPIC,
      });
      // A job sent the right way, after the attack: once it has run, anything the page queued has been received.
      await sendJob(clients.producer, {
        tenantId: 'acme',
        operationId: 'after-the-scan',
        jobType: 'refund-settlement',
        payload: { merchantId: 'm-1', amount: 5, currency: 'EUR' },
      });
      const adminPort = Number(new URL(state.endpoints.admin).port);
      for (;;) {
        const shown = await send(adminPort, 'GET', '/items/acme/after-the-scan', { host: `127.0.0.1:${adminPort}` });
        if (shown.status === 200 && JSON.parse(shown.body).item.state === 'succeeded') break;
        await new Promise((wait) => setTimeout(wait, 200));
      }

      // assert: the scan found every listener (it was not blind), and nothing was read, created or run
      expect(outcome.open).toEqual(expect.arrayContaining(listeners.map((listener) => listener.port)));
      expect(await evidence()).toEqual({ rows: [], topics: 0, subscriptions: 0, audit: 0 });
      expect(outcome.reads).toEqual([]);
    });
  });
});
