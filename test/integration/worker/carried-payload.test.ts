import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toSqsEvent } from '../../../infra/local/sqs-event-source.js';
import { canonicalJson, MAX_PAYLOAD_BYTES, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createSqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { newWorkItem } from '../../../lib/store/work-items/schemas.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import { PAYLOAD_WAIT_HORIZON_MS } from '../../../lib/worker/await-payload.js';
import { engineEndpoints, testHandlerConfig } from '../../support/engine.js';
import { FaultProxy } from '../../support/fault-proxy.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const ran: unknown[] = [];
const settle = defineJob({
  type: 'settle',
  version: 1,
  target: 'B',
  payload: z.strictObject({ name: z.string(), amount: z.number(), note: z.string().optional() }),
  run: async (ctx) => {
    ran.push(ctx.payload);
    return { outcomeCode: 'settled' };
  },
});

/** A job message carrying its body; `payloadHash` is the body's unless overridden. */
function carrying(operationId: string, body: unknown, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    v: 1,
    kind: 'job',
    tenantId: 'acme',
    operationId,
    jobType: 'settle',
    payloadHash: payloadHash(body),
    payload: { body },
    ...overrides,
  });
}

const SECRET = 'Zoë-secret-4711';

describe('payload bodies carried in the message (docs/PRODUCERS.md, section 4)', () => {
  let harness: WorkerHarness;
  let messages = 0;

  beforeAll(async () => {
    harness = await createWorkerHarness('carried', [settle]);
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** Delivers `bodies` to a fresh worker (one Lambda batch) and answers each message's result. */
  async function deliver(bodies: string[], options: Parameters<WorkerHarness['worker']>[0] = {}) {
    const worker = harness.worker(options);
    const records = bodies.map((Body) => ({ MessageId: `m-${++messages}`, ReceiptHandle: 'r', Body }));
    const response = await worker(toSqsEvent(records, 'arn:aws:sqs:us-east-1:000000000000:q'));
    expect(response.batchItemFailures).toEqual([]);
    return worker.telemetry;
  }

  /** The payloads table's item count: a message that mutates nothing leaves it as it was. */
  async function payloadItems(): Promise<number> {
    const scan = await harness.client.send(
      new ScanCommand({ TableName: harness.tables.payloadsTable, Select: 'COUNT' }),
    );
    return scan.Count ?? 0;
  }

  /** Every item of both tables, as text: where a body would show if it were stored where it must not be. */
  async function everything(): Promise<{ jobs: string; payloads: string }> {
    const scan = async (table: string) =>
      JSON.stringify((await harness.client.send(new ScanCommand({ TableName: table }))).Items ?? []);
    return { jobs: await scan(harness.tables.jobsTable), payloads: await scan(harness.tables.payloadsTable) };
  }

  async function quarantineReasons(): Promise<Record<string, string>> {
    const items = (await harness.client.send(new ScanCommand({ TableName: harness.tables.jobsTable }))).Items ?? [];
    return Object.fromEntries(
      items.filter((item) => item.kind === 'quarantine').map((item) => [String(item.messageId), String(item.reason)]),
    );
  }

  const body = { name: 'Zoë Ångström', amount: 70.0 };
  const identity = parseIdentity({ tenantId: 'acme', operationId: 'carried-1' });

  it('a carried body is verified, moved into the payloads table in canonical form, and the job runs once', async () => {
    await deliver([carrying('carried-1', body)]);

    expect(ran).toEqual([{ name: 'Zoë Ångström', amount: 70 }]);
    expect(await harness.store.get(identity)).toMatchObject({
      state: 'succeeded',
      payloadHash: payloadHash(body),
      payloadInline: true,
    });
    expect(await harness.payloads.get(identity)).toEqual({ body, payloadHash: payloadHash(body), intact: true });
    expect((await everything()).payloads).toContain(JSON.stringify(canonicalJson(body)));
  });

  it('the same job again, spelt otherwise: a replay, no second run, the stored body unchanged', async () => {
    const before = await harness.store.get(identity);
    const items = await payloadItems();

    await deliver([
      JSON.stringify({
        ...JSON.parse(carrying('carried-1', body)),
        payload: { body: { amount: 70, name: body.name } },
      }),
    ]);

    expect(ran).toHaveLength(1);
    expect(await harness.store.get(identity)).toEqual(before);
    expect(await harness.payloads.get(identity)).toEqual({ body, payloadHash: payloadHash(body), intact: true });
    expect(await payloadItems()).toBe(items);
    expect(await quarantineReasons()).toEqual({});
  });

  it('another body for the same identity: quarantined payload_conflict, the row and stored body untouched', async () => {
    const before = { row: await harness.store.get(identity), payload: await harness.payloads.get(identity) };
    const other = { name: SECRET, amount: 1 };

    await deliver([carrying('carried-1', other)]);

    expect(ran).toHaveLength(1);
    expect({ row: await harness.store.get(identity), payload: await harness.payloads.get(identity) }).toEqual(before);
    expect(Object.values(await quarantineReasons())).toEqual(['payload_conflict']);
    // The quarantine record keeps a digest of the message, never the body.
    expect((await everything()).jobs).not.toContain(SECRET);
  });

  it('bad carried bodies are quarantined with a typed reason; nothing is stored and no row is created', async () => {
    const before = await quarantineReasons();
    const large = { amount: 1, name: 'x'.repeat(MAX_PAYLOAD_BYTES) };
    // Its true hash, computed here: the library's own hashing refuses a body this large.
    const largeHash = createHash('sha256').update(JSON.stringify(large)).digest('hex');
    const cases: Record<string, string> = {
      payload_hash_mismatch: carrying('bad-hash', { name: SECRET, amount: 2 }, { payloadHash: payloadHash(body) }),
      payload_too_large: carrying('too-large', { amount: 1 }, { payload: { body: large }, payloadHash: largeHash }),
      payload_unreadable: carrying('lone-surrogate', { name: 'x', amount: 1 }, { payload: { body: '\ud800' } }),
      invalid_envelope: carrying('both', body, { payload: { body, ref: 's3://bucket/key' } }),
    };
    const wake = carrying('a-wake', body, { kind: 'wake' });

    await deliver([...Object.values(cases), wake]);

    const added = Object.entries(await quarantineReasons())
      .filter(([id]) => !(id in before))
      .map(([, reason]) => reason)
      .sort();
    expect(added).toEqual([...Object.keys(cases), 'invalid_envelope'].sort());
    for (const operationId of ['bad-hash', 'too-large', 'lone-surrogate', 'both', 'a-wake']) {
      const named = parseIdentity({ tenantId: 'acme', operationId });
      expect(await harness.store.get(named)).toBeUndefined();
      expect(await harness.payloads.get(named)).toBeUndefined();
    }
    expect((await everything()).jobs).not.toContain(SECRET);
    expect(ran).toHaveLength(1);
  });

  it('a deployment that refuses carried bodies quarantines them (inline_payload_refused) and stores nothing', async () => {
    const refused = parseIdentity({ tenantId: 'acme', operationId: 'refused-1' });

    const telemetry = await deliver([carrying('refused-1', { name: SECRET, amount: 3 })], {
      inlinePayloads: 'refuse',
    });

    expect(Object.values(await quarantineReasons())).toContain('inline_payload_refused');
    expect(await harness.store.get(refused)).toBeUndefined();
    expect(await harness.payloads.get(refused)).toBeUndefined();
    const stored = await everything();
    expect(stored.jobs).not.toContain(SECRET);
    expect(stored.payloads).not.toContain(SECRET);
    expect(JSON.stringify(telemetry)).not.toContain(SECRET);
    expect(ran).toHaveLength(1);
  });

  it('with the default policy the same message creates the job: a refusal is the deployment setting, not the message', async () => {
    await deliver([carrying('refused-1', { name: 'Eve', amount: 3 })]);

    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'refused-1' }))).toMatchObject({
      state: 'succeeded',
    });
    expect(ran).toHaveLength(2);
  });

  it('a carried body whose identity a payloadRef row holds under another hash: quarantined, nothing stored', async () => {
    const bound = parseIdentity({ tenantId: 'acme', operationId: 'by-ref-1' });
    const refHash = payloadHash({ name: 'by reference', amount: 9 });
    await harness.store.enqueue(
      newWorkItem(bound, { jobType: 'settle', payloadHash: refHash, payload: { ref: 's3://bucket/by-ref-1' } }, 3),
    );
    const row = await harness.store.get(bound);
    const items = await payloadItems();
    const quarantined = Object.keys(await quarantineReasons());
    const runs = ran.length;

    await deliver([carrying('by-ref-1', { name: SECRET, amount: 4 })]);

    const added = Object.entries(await quarantineReasons()).filter(([id]) => !quarantined.includes(id));
    expect(added.map(([, reason]) => reason)).toEqual(['payload_conflict']);
    expect(await harness.store.get(bound)).toEqual(row);
    expect(await harness.payloads.get(bound)).toBeUndefined();
    expect(await payloadItems()).toBe(items);
    expect((await everything()).payloads).not.toContain(SECRET);
    expect(ran).toHaveLength(runs);
  });

  it('a crash between the row and its body: the row is never run without it, and the redelivery completes it', async () => {
    const crashed = parseIdentity({ tenantId: 'acme', operationId: 'crash-1' });
    const job = { name: 'Åsa', amount: 12.5 };
    const runs = ran.length;
    const proxy = await FaultProxy.start(engineEndpoints().dynamo);
    try {
      const config = testHandlerConfig(harness.tables, { queueUrl: harness.queueUrl, dlqUrl: harness.dlqUrl });
      const viaProxy = createSqsWorkerHandler({
        jobs: [settle],
        config: { ...config, dynamodbEndpoint: proxy.endpoint },
        clock: harness.clock,
        telemetry: countingTelemetry(),
        heartbeatIntervalMs: 0,
      });
      // Every PutItem to the payloads table is reset before the engine sees it (the SDK's retries too): the worker
      // dies, as far as the tables can tell, between its two writes.
      const bodyWrites = proxy.inject({
        match: (request) => request.operation === 'PutItem' && request.body.TableName === harness.tables.payloadsTable,
        fault: { kind: 'reset_request' },
        times: 100,
      });
      const record = { MessageId: 'crash-first', ReceiptHandle: 'r', Body: carrying('crash-1', job) };
      const first = await viaProxy(toSqsEvent([record], 'arn:aws:sqs:us-east-1:000000000000:q'));
      bodyWrites.remove();

      expect(bodyWrites.hits()).toBeGreaterThan(0);
      expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'crash-first' }]);
      expect(await harness.store.get(crashed)).toMatchObject({ state: 'claimed', attempts: 1 });
      expect(await harness.payloads.get(crashed)).toBeUndefined();

      // The lease lapses; the sweeper's wake-up claims the row before the message comes back: not run, queued for its
      // body, the attempt given back.
      harness.clock.advance(settle.leaseMs + 1);
      const wake = carrying('crash-1', job, { kind: 'wake', payload: { inline: true } });
      await deliver([wake]);
      expect(ran).toHaveLength(runs);
      expect(await harness.store.get(crashed)).toMatchObject({
        state: 'queued',
        errorCode: 'payload_pending',
        attempts: 1,
        fence: 2,
      });

      // The message's redelivery stores the body; the next wake-up, once the row is due, runs the job once.
      await deliver([record.Body]);
      expect(await harness.payloads.get(crashed)).toEqual({ body: job, payloadHash: payloadHash(job), intact: true });
      const waiting = await harness.store.get(crashed);
      harness.clock.advance((waiting?.availableAt ?? 0) - harness.clock.now() + 1);
      await deliver([wake, record.Body]);

      expect(ran.slice(runs)).toEqual([job]);
      expect(await harness.store.get(crashed)).toMatchObject({ state: 'succeeded', attempts: 2 });
    } finally {
      await proxy.stop();
    }
  });

  it('a row whose body never came is quarantined payload_missing once no message can still carry it (14 days)', async () => {
    const stale = parseIdentity({ tenantId: 'acme', operationId: 'never-came' });
    const job = { name: 'never', amount: 1 };
    await harness.store.enqueue(
      newWorkItem(stale, { jobType: 'settle', payloadHash: payloadHash(job), payload: { inline: true } }, 3),
    );
    const runs = ran.length;
    const wake = carrying('never-came', job, { kind: 'wake', payload: { inline: true } });

    await deliver([wake]);
    const waiting = await harness.store.get(stale);
    harness.clock.advance(PAYLOAD_WAIT_HORIZON_MS);
    await deliver([wake]);

    expect(waiting).toMatchObject({ state: 'queued', errorCode: 'payload_pending', attempts: 0 });
    expect(await harness.store.get(stale)).toMatchObject({ state: 'quarantined', errorCode: 'payload_missing' });
    expect(ran).toHaveLength(runs);
  });
});
