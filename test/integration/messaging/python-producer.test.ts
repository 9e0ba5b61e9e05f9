import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import * as z from 'zod';
import { canonicalJson, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { PRODUCER_VECTORS_FILE } from '../../support/producer-vectors.js';
import { localAwsEnvironment, type PythonForProducer, pythonForProducer, runPython } from '../../support/python.js';
import { queryParkedByState } from '../../support/store.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/** The reference producer other languages copy (docs/PRODUCERS.md); the package ships it. */
const PRODUCER = 'examples/producers/python/leasefence_producer.py';

const ran: { tenantId: string; payload: unknown }[] = [];
const settle = defineJob({
  type: 'settle',
  version: 1,
  target: 'B',
  payload: z.strictObject({ name: z.string(), amount: z.number(), note: z.string().optional() }),
  run: async (ctx) => {
    ran.push({ tenantId: ctx.identity.tenantId, payload: ctx.payload });
    return { outcomeCode: 'settled' };
  },
});

/** `count` doubles from random bits (every exponent, subnormals included), NaN and infinities left out. */
function randomDoubles(count: number): number[] {
  const view = new DataView(randomBytes(count * 8).buffer);
  const doubles: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const value = view.getFloat64(index * 8);
    if (Number.isFinite(value)) doubles.push(value);
  }
  return doubles;
}

describe('the Python reference producer (boto3) against the local engines', () => {
  let found: PythonForProducer;
  let harness: WorkerHarness;

  beforeAll(async () => {
    found = pythonForProducer();
    if ('missing' in found) console.log(`[leasefence tests] SKIPPED the Python producer tests: ${found.missing}`);
    harness = await createWorkerHarness('pyproducer', [settle]);
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** The Python to run, or the test is skipped with the reason printed. */
  function python(context: TestContext): string {
    if ('missing' in found) context.skip(found.missing);
    return (found as { python: string }).python;
  }

  /** Runs the producer's `send` against this file's tables and queue; the answer is its JSON line. */
  async function send(context: TestContext, job: { tenantId: string; operationId: string; payload: string }) {
    const run = await runPython(
      python(context),
      [
        PRODUCER,
        'send',
        ...['--queue-url', harness.queueUrl, '--payloads-table', harness.tables.payloadsTable],
        ...['--jobs-table', harness.tables.jobsTable, '--job-type', 'settle'],
        ...['--tenant-id', job.tenantId, '--operation-id', job.operationId, '--payload', job.payload],
      ],
      { env: localAwsEnvironment() },
    );
    expect(run.stderr, 'the producer wrote to stderr').toBe('');
    return { code: run.code, answer: JSON.parse(run.stdout) as Record<string, unknown> };
  }

  it('reproduces every shared test vector (canonical JSON, hash, bucket, keys, rejected input)', async (context) => {
    const run = await runPython(python(context), [PRODUCER, 'check-vectors', PRODUCER_VECTORS_FILE]);

    expect(run.stdout).toMatch(/^vectors: [1-9]\d* passed, 0 failed$/m);
    expect(run.code).toBe(0);
  });

  it('writes numbers and text as the library does, for random doubles and random Unicode strings', async (context) => {
    const strings = Array.from({ length: 200 }, () =>
      String.fromCodePoint(
        ...Array.from({ length: 8 }, () => {
          const point = Math.floor(Math.random() * 0x110000);
          return point >= 0xd800 && point <= 0xdfff ? 0x41 : point; // no lone surrogates: those have no canonical form
        }),
      ),
    );
    const value = { doubles: randomDoubles(2000), strings, keyed: Object.fromEntries(strings.map((s, i) => [s, i])) };

    const run = await runPython(python(context), [PRODUCER, 'canonical'], { stdin: JSON.stringify(value) });

    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(canonicalJson(value));
  });

  it('sends a job the worker runs: the body under tenant#bucket in canonical JSON, the hash the worker verifies', async (context) => {
    const payload = '{"name":"Zoë Ångström","amount":70.0}';

    const sent = await send(context, { tenantId: 'acme', operationId: 'settle-1', payload });
    const round = await harness.poll(harness.worker());

    expect(sent).toMatchObject({
      code: 0,
      answer: { answer: 'new', payloadStored: 'stored', payloadHash: payloadHash(JSON.parse(payload)) },
    });
    expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
    const item = await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'settle-1' }));
    expect(item).toMatchObject({ state: 'succeeded', outcomeCode: 'settled', payloadHash: sent.answer.payloadHash });
    expect(ran).toEqual([{ tenantId: 'acme', payload: { name: 'Zoë Ångström', amount: 70 } }]);
  });

  it('a second send of the same job is a replay with the stored row; a finished job is not signalled again', async (context) => {
    const payload = '{"amount":70,"name":"Zoë Ångström"}'; // the same payload, spelt otherwise

    const sent = await send(context, { tenantId: 'acme', operationId: 'settle-1', payload });
    const round = await harness.poll(harness.worker());

    expect(sent).toEqual({
      code: 0,
      answer: {
        answer: 'replay',
        payloadStored: 'replay',
        payloadHash: payloadHash({ name: 'Zoë Ångström', amount: 70 }),
        stored: { state: 'succeeded', outcomeCode: 'settled' },
        messageId: '',
      },
    });
    expect(round).toMatchObject({ received: 0 });
    expect(ran).toHaveLength(1);
  });

  it('a different payload for the same identity is a conflict: nothing stored, nothing sent', async (context) => {
    const original = payloadHash({ name: 'Zoë Ångström', amount: 70 });

    const sent = await send(context, {
      tenantId: 'acme',
      operationId: 'settle-1',
      payload: '{"name":"Eve","amount":1}',
    });

    expect(sent).toEqual({ code: 3, answer: { error: 'payload_conflict', storedPayloadHash: original } });
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    const stored = await harness.payloads.get({ tenantId: 'acme', operationId: 'settle-1' });
    expect(stored?.payloadHash).toBe(original);
  });

  it('a malformed job is refused before anything is written or sent, naming the bad field', async (context) => {
    const sent = await send(context, {
      tenantId: 'ac#me',
      operationId: 'settle-2',
      payload: '{"name":"x","amount":1}',
    });

    expect(sent).toMatchObject({ code: 2, answer: { error: 'invalid_input', field: 'tenantId' } });
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
  });

  describe('the one-message form (--carry-body): the body in the message, stored by the worker', () => {
    /** Runs `send --carry-body` (no payloads table named: the producer needs only SQS). */
    async function carry(context: TestContext, job: { tenantId: string; operationId: string; payload: string }) {
      const run = await runPython(
        python(context),
        [
          PRODUCER,
          'send',
          '--carry-body',
          ...['--queue-url', harness.queueUrl, '--job-type', 'settle'],
          ...['--tenant-id', job.tenantId, '--operation-id', job.operationId, '--payload', job.payload],
        ],
        { env: localAwsEnvironment() },
      );
      expect(run.stderr, 'the producer wrote to stderr').toBe('');
      return { code: run.code, answer: JSON.parse(run.stdout) as Record<string, unknown> };
    }

    const identity = parseIdentity({ tenantId: 'acme', operationId: 'carry-1' });
    const quarantined = async () =>
      (await queryParkedByState(harness.client, harness.tables.jobsTable, 'quarantined'))
        .filter((item) => item.kind === 'quarantine' && item.operationId === 'carry-1')
        .map((item) => item.reason);

    it('one SendMessage: the worker verifies the body, stores it canonical under the identity and runs the job', async (context) => {
      const payload = '{"name":"Zoë Ångström","amount":70.0,"note":"x"}';
      ran.length = 0;

      const sent = await carry(context, { tenantId: 'acme', operationId: 'carry-1', payload });
      const round = await harness.poll(harness.worker());

      expect(sent).toMatchObject({
        code: 0,
        answer: { answer: 'sent', payloadHash: payloadHash(JSON.parse(payload)) },
      });
      expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', payloadInline: true });
      expect(await harness.payloads.get(identity)).toMatchObject({
        payloadHash: sent.answer.payloadHash,
        intact: true,
      });
      expect(ran).toEqual([{ tenantId: 'acme', payload: { name: 'Zoë Ångström', amount: 70, note: 'x' } }]);
    });

    it('the same job again: a replay the worker does not run twice', async (context) => {
      const before = await harness.store.get(identity);

      const sent = await carry(context, {
        tenantId: 'acme',
        operationId: 'carry-1',
        payload: '{"note":"x","amount":70,"name":"Zoë Ångström"}',
      });
      const round = await harness.poll(harness.worker());

      expect(sent.code).toBe(0);
      expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      expect(await harness.store.get(identity)).toEqual(before);
      expect(ran).toHaveLength(1);
      expect(await quarantined()).toEqual([]);
    });

    it('another body for the same identity: the worker quarantines it payload_conflict; row and body untouched', async (context) => {
      const before = { row: await harness.store.get(identity), body: await harness.payloads.get(identity) };

      const sent = await carry(context, {
        tenantId: 'acme',
        operationId: 'carry-1',
        payload: '{"name":"Eve","amount":1}',
      });
      const round = await harness.poll(harness.worker());

      expect(sent.code).toBe(0);
      expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      expect(await quarantined()).toEqual(['payload_conflict']);
      expect({ row: await harness.store.get(identity), body: await harness.payloads.get(identity) }).toEqual(before);
      expect(ran).toHaveLength(1);
    });

    it('a malformed job is refused by the producer, nothing sent', async (context) => {
      const sent = await carry(context, {
        tenantId: 'acme',
        operationId: 'carry 2',
        payload: '{"name":"x","amount":1}',
      });

      expect(sent).toMatchObject({ code: 2, answer: { error: 'invalid_input', field: 'operationId' } });
      expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    });
  });
});
