import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { ENVELOPE_VERSION, serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { messageGroupOf } from '../../../lib/messaging/message-group.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { WorkState } from '../../../lib/states.js';
import { SpanName } from '../../../lib/tracing/tracer.js';
import { requireTransactions } from '../../support/capability.js';
import { expectState } from '../../support/expectations.js';
import { carrierBusy, defineOrderJob, RETRY_AT_ONCE } from '../../support/order-jobs.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

// Spans collected in-process: the user's side (an SDK provider, an exporter, a context manager) as a test registers
// it; leasefence only calls the OpenTelemetry API. Real engines: dynalite for the tables, fauxqs for the queue.

const TENANT = 'tenant-traced-7f3';
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let records: UserTable;

const notify = defineOrderJob('notify-traced', async () => ({ outcomeCode: 'notified' }));

const ship = defineOrderJob('ship-traced', async (ctx) => {
  await ctx.step('reserve-stock', async () => ({ reserved: true }));
  await ctx.records.write(
    { tableName: records.tableName, key: { pk: `shipment#${ctx.identity.operationId}` } },
    { set: { status: 'shipped' } },
  );
  ctx.enqueue('notify-traced', { order: ctx.payload.order }, { name: 'email' });
  return { outcomeCode: 'shipped' };
});

let failFirst = false;
const flaky = defineOrderJob(
  'flaky-traced',
  async (ctx) => {
    if (failFirst && ctx.attempt === 1) throw carrierBusy();
    return { outcomeCode: 'done' };
  },
  RETRY_AT_ONCE,
);

const reserve = defineJob({
  type: 'reserve-traced',
  version: 1,
  target: 'A',
  payload: z.strictObject({ sku: z.string() }),
  run: async (ctx) => {
    await ctx.transactions.runStep('reserve-sku', [], { result: { reserved: 1 } });
    return { outcomeCode: 'reserved' };
  },
});

const spansNamed = (name: string, spans: readonly ReadableSpan[] = exporter.getFinishedSpans()) =>
  spans.filter((span) => span.name === name);
const only = (name: string, spans?: readonly ReadableSpan[]): ReadableSpan => {
  const found = spansNamed(name, spans);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as ReadableSpan;
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const byStart = (list: readonly ReadableSpan[]) =>
  [...list].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
const names = (list: readonly ReadableSpan[]) => list.map((span) => span.name).sort();

describe('tracing: one trace from the producer send through the successor run', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    harness = await createWorkerHarness('tracing', [ship, notify, flaky, reserve]);
    records = await createUserTable('tracing-records', { partition: 'pk' });
  });
  afterAll(async () => {
    await harness.close();
    await records.drop();
    trace.disable();
    context.disable();
  });

  /** The message attribute names of the queued messages (each left on the queue, visible again at once). */
  async function traceAttributesQueued(): Promise<string[][]> {
    const received = await harness.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: harness.queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        VisibilityTimeout: 0,
      }),
    );
    return (received.Messages ?? []).map((message) => Object.keys(message.MessageAttributes ?? {}));
  }
  beforeEach(() => exporter.reset());

  it('send ▶ process ▶ claim, run (step ▶ fenced write, fenced write), complete ▶ enqueue successor ▶ its process, claim, run', async () => {
    const operationId = 'order-4471-traced';
    await sendJob(
      { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads, tracing: {} },
      { tenantId: TENANT, operationId, jobType: 'ship-traced', payload: { order: 'o-4471' } },
    );
    // The context travels as a message attribute, beside the envelope (its schema is the same traced or not).
    expect(await traceAttributesQueued()).toEqual([['traceparent']]);
    const worker = harness.worker({ tracing: true });
    await harness.poll(worker);
    await expectState(harness.store, parseIdentity({ tenantId: TENANT, operationId }), WorkState.succeeded);
    expect(await traceAttributesQueued()).toEqual([['traceparent']]);
    await harness.poll(worker);
    await expectState(
      harness.store,
      parseIdentity({ tenantId: TENANT, operationId: `${operationId}/email` }),
      WorkState.succeeded,
    );

    const spans = exporter.getFinishedSpans();
    const send = only(SpanName.send);
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(parentOf(send)).toBeUndefined();
    // Everything below is one trace: the send's.
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([send.spanContext().traceId]));

    const [parentProcess, successorProcess] = byStart(spansNamed(SpanName.process)) as [ReadableSpan, ReadableSpan];
    expect(spansNamed(SpanName.process)).toHaveLength(2);
    expect(parentProcess.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(parentProcess)).toBe(idOf(send));
    const children = (span: ReadableSpan) => spans.filter((child) => parentOf(child) === idOf(span));

    const ofParent = children(parentProcess);
    expect(names(ofParent)).toEqual([SpanName.claim, SpanName.complete, SpanName.run].sort());
    const run = only(SpanName.run, ofParent);
    expect(names(children(run))).toEqual([SpanName.fencedWrite, SpanName.step].sort());
    const step = only(SpanName.step, children(run));
    expect(names(children(step))).toEqual([SpanName.fencedWrite]);
    const recordWrite = only(SpanName.fencedWrite, children(run));
    expect(recordWrite.attributes).toMatchObject({ 'leasefence.table': records.tableName, 'leasefence.fence': 1 });
    const complete = only(SpanName.complete, ofParent);
    const enqueue = only(SpanName.enqueueSuccessor, children(complete));
    expect(enqueue.kind).toBe(SpanKind.PRODUCER);
    expect(enqueue.attributes['leasefence.job_type']).toBe('notify-traced');

    // The successor's wake-up carried the enqueue span's context: its run continues the chain.
    expect(parentOf(successorProcess)).toBe(idOf(enqueue));
    expect(names(children(successorProcess))).toEqual([SpanName.claim, SpanName.complete, SpanName.run].sort());
    expect(successorProcess.attributes['leasefence.operation']).toBe(
      hashIdentifier(`${operationId}/email`, DEVELOPMENT_IDENTIFIER_KEY),
    );
  });

  it("a retry's own wake-up carries the failed attempt's context: the retry runs in the same trace", async () => {
    failFirst = true;
    try {
      const operationId = 'order-9100-traced';
      await sendJob(
        { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads, tracing: {} },
        { tenantId: TENANT, operationId, jobType: 'flaky-traced', payload: { order: 'o-9100' } },
      );
      const worker = harness.worker({ tracing: true });
      await harness.poll(worker);
      await expectState(harness.store, parseIdentity({ tenantId: TENANT, operationId }), WorkState.queued);
      await harness.poll(worker);
      await expectState(harness.store, parseIdentity({ tenantId: TENANT, operationId }), WorkState.succeeded);
    } finally {
      failFirst = false;
    }
    const send = only(SpanName.send);
    const [first, retry] = byStart(spansNamed(SpanName.process));
    expect(spansNamed(SpanName.process)).toHaveLength(2);
    expect(parentOf(first as ReadableSpan)).toBe(idOf(send));
    expect(parentOf(retry as ReadableSpan)).toBe(idOf(first as ReadableSpan));
    expect(new Set(exporter.getFinishedSpans().map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it('a rows-first send (confirm) carries the context in the wake-up it sends after the row', async () => {
    const operationId = 'order-9200-traced';
    const delayed = {
      client: harness.client,
      jobsTable: harness.tables.jobsTable,
      jobs: [ship, notify, flaky],
      clock: harness.clock,
    };
    await sendJob(
      { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads, delayed, tracing: {} },
      { tenantId: TENANT, operationId, jobType: 'flaky-traced', payload: { order: 'o-9200' }, confirm: true },
    );
    expect(await traceAttributesQueued()).toEqual([['traceparent']]);
    await harness.poll(harness.worker({ tracing: true }));
    await expectState(harness.store, parseIdentity({ tenantId: TENANT, operationId }), WorkState.succeeded);
    expect(parentOf(only(SpanName.process))).toBe(idOf(only(SpanName.send)));
  });

  it('a class A step (ctx.transactions.runStep) is a step span around its fenced transaction', async (context) => {
    requireTransactions(context);
    const operationId = 'order-9300-traced';
    await sendJob(
      { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads, tracing: {} },
      { tenantId: TENANT, operationId, jobType: 'reserve-traced', payload: { sku: 'sku-1' } },
    );
    await harness.poll(harness.worker({ tracing: true }));
    await expectState(harness.store, parseIdentity({ tenantId: TENANT, operationId }), WorkState.succeeded);
    const step = only(SpanName.step);
    expect(parentOf(step)).toBe(idOf(only(SpanName.run)));
    expect(step.attributes['leasefence.step']).toBe(hashIdentifier('reserve-sku', DEVELOPMENT_IDENTIFIER_KEY));
    const write = only(SpanName.fencedWrite);
    expect(parentOf(write)).toBe(idOf(step));
    expect(write.attributes['leasefence.write']).toBe('transaction');
  });

  it('no span attribute holds a raw tenant, operation or step name: they are hashed as in logs', async () => {
    const operationId = 'order-5512-traced';
    await sendJob(
      {
        sqs: harness.sqs,
        queueUrl: harness.queueUrl,
        payloads: harness.payloads,
        tracing: { identifierKey: DEVELOPMENT_IDENTIFIER_KEY },
      },
      { tenantId: TENANT, operationId, jobType: 'ship-traced', payload: { order: 'o-5512' } },
    );
    const worker = harness.worker({ tracing: true });
    await harness.poll(worker);
    await harness.poll(worker);

    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThanOrEqual(12);
    const values = spans.flatMap((span) => Object.values(span.attributes).map(String));
    for (const raw of [TENANT, operationId, 'reserve-stock', 'email']) {
      expect(values.filter((value) => value.includes(raw))).toEqual([]);
    }
    expect(only(SpanName.send).attributes).toMatchObject({
      'leasefence.tenant': hashIdentifier(TENANT, DEVELOPMENT_IDENTIFIER_KEY),
      'leasefence.operation': hashIdentifier(operationId, DEVELOPMENT_IDENTIFIER_KEY),
    });
    expect(only(SpanName.step).attributes['leasefence.step']).toBe(
      hashIdentifier('reserve-stock', DEVELOPMENT_IDENTIFIER_KEY),
    );
  });

  it('a producer without a key sends ids as withheld, never raw', async () => {
    await sendJob(
      { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads, tracing: {} },
      { tenantId: TENANT, operationId: 'order-6000-traced', jobType: 'ship-traced', payload: { order: 'o-6000' } },
    );
    expect(only(SpanName.send).attributes).toMatchObject({
      'leasefence.tenant': 'withheld',
      'leasefence.operation': 'withheld',
    });
    const worker = harness.worker();
    await harness.poll(worker);
    await harness.poll(worker);
  });

  it('a malformed traceparent from a producer starts a new trace; the job runs as usual', async () => {
    const operationId = 'order-7000-traced';
    const identity = parseIdentity({ tenantId: TENANT, operationId });
    const body = { order: 'o-7000' };
    const hash = payloadHash(body);
    await harness.payloads.write(identity, body, hash);
    // Another language's producer, with a made-up trace context attribute.
    await harness.sqs.send(
      new SendMessageCommand({
        QueueUrl: harness.queueUrl,
        MessageBody: serializeEnvelope({
          v: ENVELOPE_VERSION,
          kind: 'job',
          tenantId: TENANT,
          operationId,
          jobType: 'ship-traced',
          payloadHash: hash,
          payload: { inline: true },
        }),
        MessageGroupId: messageGroupOf(TENANT),
        MessageAttributes: { traceparent: { DataType: 'String', StringValue: '00-zz-not-a-trace-context' } },
      }),
    );
    const worker = harness.worker({ tracing: true });
    await harness.poll(worker);
    await expectState(harness.store, identity, WorkState.succeeded);
    const process = only(SpanName.process);
    expect(parentOf(process)).toBeUndefined();
    expect(names(exporter.getFinishedSpans().filter((span) => parentOf(span) === idOf(process)))).toEqual(
      [SpanName.claim, SpanName.complete, SpanName.run].sort(),
    );
    await harness.poll(worker);
  });

  it('with tracing off (the default) on both sides, no span is produced and no trace attribute is sent', async () => {
    const operationId = 'order-8000-untraced';
    await harness.send({ tenantId: TENANT, operationId, jobType: 'ship-traced', payload: { order: 'o-8000' } });
    expect(await traceAttributesQueued()).toEqual([[]]);
    const worker = harness.worker();
    await harness.poll(worker);
    // The successor's wake-up, as the worker sent it.
    expect(await traceAttributesQueued()).toEqual([[]]);
    await harness.poll(worker);
    await expectState(
      harness.store,
      parseIdentity({ tenantId: TENANT, operationId: `${operationId}/email` }),
      WorkState.succeeded,
    );
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
