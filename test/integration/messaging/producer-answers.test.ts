import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toSqsEvent } from '../../../infra/local/sqs-event-source.js';
import { cancelItem } from '../../../lib/admin/cancel.js';
import { InvalidInputError, PayloadConflictError } from '../../../lib/errors.js';
import { MAX_PAYLOAD_BYTES, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { jobEnvelopeSchema } from '../../../lib/messaging/envelope.js';
import { type ProducerDependencies, type SendJobInput, sendJob } from '../../../lib/messaging/producer.js';
import { testDocumentClient } from '../../support/engine.js';
import { expectRejection } from '../../support/expectations.js';
import { drainQueue } from '../../support/queue-reader.js';
import { countRequests } from '../../support/request-counter.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

let runs = 0;
const settle = defineJob({
  type: 'settle',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number() }),
  run: async (ctx) => {
    runs += 1;
    return { outcomeCode: 'settled', result: { amount: ctx.payload.amount } };
  },
});

describe("sendJob's answer: new, replay with the stored row, or a conflict with nothing sent", () => {
  let harness: WorkerHarness;
  let deps: ProducerDependencies;
  const send = (input: Omit<SendJobInput, 'tenantId' | 'jobType'> & { payload?: unknown }) =>
    sendJob(deps, { tenantId: 'acme', jobType: 'settle', ...input } as SendJobInput);

  beforeAll(async () => {
    harness = await createWorkerHarness('answers', [settle]);
    deps = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloads: harness.payloads,
      delayed: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: [settle], clock: harness.clock },
    };
  });
  afterAll(async () => {
    await harness.close();
  });

  it('a retry before any worker ran is a replay with no row yet: the wake-up is sent again, the job runs once', async () => {
    const first = await send({ operationId: 'settle-1', payload: { amount: 70 } });
    const retry = await send({ operationId: 'settle-1', payload: { amount: 70.0 } });
    const round = await harness.poll(harness.worker());

    expect(first).toMatchObject({ answer: 'new', payloadStored: 'stored' });
    expect(first).not.toHaveProperty('stored');
    expect(retry).toMatchObject({ answer: 'replay', payloadStored: 'replay', stored: null });
    expect(retry.messageId).not.toBe('');
    expect(round).toMatchObject({ received: 2, failed: 0, deleted: 2 });
    expect(runs).toBe(1);
  });

  it('a retry after the job finished is a replay with its state and outcome, and nothing is sent', async () => {
    const retry = await send({ operationId: 'settle-1', payload: { amount: 70 } });

    expect(retry).toMatchObject({
      answer: 'replay',
      messageId: '',
      stored: { state: 'succeeded', outcomeCode: 'settled', result: { amount: 70 } },
    });
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('a different payload is a PayloadConflictError naming what the identity is bound to; nothing sent', async () => {
    const error = await expectRejection(
      send({ operationId: 'settle-1', payload: { amount: 1 } }),
      PayloadConflictError,
    );

    expect(error.existing).toEqual({
      payloadHash: payloadHash({ amount: 70 }),
      stored: { state: 'succeeded', outcomeCode: 'settled', result: { amount: 70 } },
    });
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    expect((await harness.payloads.get({ tenantId: 'acme', operationId: 'settle-1' }))?.payloadHash).toBe(
      payloadHash({ amount: 70 }),
    );
  });

  it('a payloadRef job whose row holds another hash is a conflict found before anything is sent', async () => {
    await send({ operationId: 'settle-ref', payloadRef: 'ref-a', payload: { amount: 5 }, confirm: true });
    await harness.poll(harness.worker({ payloadResolver: async () => ({ amount: 5 }) }));

    const error = await expectRejection(
      send({ operationId: 'settle-ref', payloadRef: 'ref-b', payload: { amount: 6 } }),
      PayloadConflictError,
    );

    expect(error.existing).toMatchObject({ payloadHash: payloadHash({ amount: 5 }), stored: { state: 'succeeded' } });
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('confirm: the queued row is written first, listable and cancellable before any worker sees it', async () => {
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'settle-confirm-cancel' });

    const sent = await send({ operationId: identity.operationId, payload: { amount: 3 }, confirm: true });
    const before = await harness.store.get(identity);
    await cancelItem(
      {
        store: harness.store,
        sqs: harness.sqs,
        queueUrl: harness.queueUrl,
        payloadsTable: harness.tables.payloadsTable,
      },
      identity,
      { actor: 'ops', reason: 'customer paid already' },
    );
    const round = await harness.poll(harness.worker());

    expect(sent).toMatchObject({ answer: 'new', row: { outcome: 'created', state: 'queued', wake: 'sent' } });
    expect(before).toMatchObject({ state: 'queued', fence: 0 });
    expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
    expect((await harness.store.get(identity))?.state).toBe('cancelled');
  });

  it('confirm: a worker runs the row; the same send again is a replay with the outcome, nothing sent', async () => {
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'settle-confirm' });
    const before = runs;

    const sent = await send({ operationId: identity.operationId, payload: { amount: 9 }, confirm: true });
    await harness.poll(harness.worker());
    const again = await send({ operationId: identity.operationId, payload: { amount: 9 }, confirm: true });

    expect(sent.answer).toBe('new');
    expect(runs).toBe(before + 1);
    expect(again).toMatchObject({
      answer: 'replay',
      messageId: '',
      row: { outcome: 'replay', state: 'succeeded', outcomeCode: 'settled', result: { amount: 9 } },
    });
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('confirm without the jobs table is refused before the body is stored', async () => {
    const identity = { tenantId: 'acme', operationId: 'settle-no-table' };

    await expectRejection(
      sendJob(
        { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads },
        {
          ...identity,
          jobType: 'settle',
          payload: { amount: 1 },
          confirm: true,
        },
      ),
      InvalidInputError,
    );

    expect(await harness.payloads.get(identity)).toBeUndefined();
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
  });
  it('carryBody: one message carrying the canonical body under the envelope schema, no table write; a worker runs it', async () => {
    const client = testDocumentClient();
    const counter = countRequests(client);
    // No payloads table: the body travels in the message.
    const producer: ProducerDependencies = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      delayed: { client, jobsTable: harness.tables.jobsTable, jobs: [settle], clock: harness.clock },
    };
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'settle-carried' });
    const input = { ...identity, jobType: 'settle', payload: { amount: 70.0 }, carryBody: true } as SendJobInput;
    const before = runs;

    const sent = await sendJob(producer, input);
    const messages = (await drainQueue(harness.sqs, harness.queueUrl)).filter((message) =>
      message.body.includes('settle-carried'),
    );

    expect(sent).toMatchObject({ answer: 'new', payloadStored: 'carried', payloadHash: payloadHash({ amount: 70 }) });
    expect(counter.writes()).toBe(0);
    expect(messages).toHaveLength(1);
    const envelope = JSON.parse(messages[0]?.body ?? '');
    expect(envelope).toEqual({
      v: 1,
      kind: 'job',
      tenantId: 'acme',
      operationId: 'settle-carried',
      jobType: 'settle',
      payloadHash: payloadHash({ amount: 70 }),
      payload: { body: { amount: 70 } },
    });
    expect(jobEnvelopeSchema.safeParse(envelope).success).toBe(true);
    expect(await harness.payloads.get(identity)).toBeUndefined();

    const record = { MessageId: messages[0]?.messageId ?? '', ReceiptHandle: 'r', Body: messages[0]?.body ?? '' };
    const response = await harness.worker()(toSqsEvent([record], 'arn:aws:sqs:us-east-1:000000000000:q'));
    const retry = await sendJob(producer, input);

    expect(response.batchItemFailures).toEqual([]);
    expect(runs).toBe(before + 1);
    expect(await harness.payloads.get(identity)).toEqual({
      body: { amount: 70 },
      payloadHash: payloadHash({ amount: 70 }),
      intact: true,
    });
    expect(retry).toMatchObject({
      answer: 'replay',
      messageId: '',
      stored: { state: 'succeeded', outcomeCode: 'settled' },
    });
    expect(counter.writes()).toBe(0);
    counter.detach();
    client.destroy();
  });

  it('carryBody: a body over the cap, or with confirm or a payloadRef, is an InvalidInputError; nothing sent', async () => {
    const large = { amount: 1, note: 'x'.repeat(MAX_PAYLOAD_BYTES) };
    const carried = { carryBody: true };

    const tooLarge = await expectRejection(
      send({ operationId: 'settle-carried-large', payload: large, ...carried }),
      InvalidInputError,
    );
    const withConfirm = await expectRejection(
      send({ operationId: 'settle-carried-confirm', payload: { amount: 1 }, confirm: true, ...carried }),
      InvalidInputError,
    );
    const withRef = await expectRejection(
      send({ operationId: 'settle-carried-ref', payloadRef: 's3://b/k', payload: { amount: 1 }, ...carried }),
      InvalidInputError,
    );

    expect(tooLarge.issues).toEqual([{ path: 'payload', message: 'too large' }]);
    expect([withConfirm, withRef].map((error) => error.issues.map((issue) => issue.path))).toEqual([
      ['carryBody'],
      ['carryBody'],
    ]);
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    for (const operationId of ['settle-carried-large', 'settle-carried-confirm', 'settle-carried-ref']) {
      const identity = parseIdentity({ tenantId: 'acme', operationId });
      expect(await harness.store.get(identity)).toBeUndefined();
      expect(await harness.payloads.get(identity)).toBeUndefined();
    }
  });

  it('a producer that reuses its config reads the fence epoch once, not once per send', async () => {
    const client = testDocumentClient();
    const counter = countRequests(client);
    const delayed = { client, jobsTable: harness.tables.jobsTable, jobs: [settle], clock: harness.clock };
    const producer: ProducerDependencies = { ...deps, delayed };

    for (const n of [1, 2, 3]) {
      const sent = await sendJob(producer, {
        tenantId: 'acme',
        operationId: `settle-epoch-${n}`,
        jobType: 'settle',
        payload: { amount: n },
        delaySeconds: 60,
      } as SendJobInput);
      expect(sent.answer).toBe('new');
    }

    // Three queued rows written, one consistent read of the epoch row; each send's body went through `payloads`.
    expect(counter.byCommand.PutItemCommand).toBe(3);
    expect(counter.reads()).toBe(1);
    counter.detach();
    client.destroy();
  });
});
