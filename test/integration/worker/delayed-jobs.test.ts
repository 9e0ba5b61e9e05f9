import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { main } from '../../../infra/cli/main.js';
import { cancelItem } from '../../../lib/admin/cancel.js';
import { PayloadConflictError } from '../../../lib/errors.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { type SendJobInput, sendJob } from '../../../lib/messaging/producer.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { harnessTargetFlags } from '../../support/cli-target.js';
import { testDocumentClient } from '../../support/engine.js';
import { dropNextResponse } from '../../support/lost-response.js';
import { drainQueue } from '../../support/queue-reader.js';
import { countRequests } from '../../support/request-counter.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';
import { captureIo } from '../../unit/cli/io.js';

let runs = 0;
const reminder = defineJob({
  type: 'reminder',
  version: 1,
  target: 'B',
  maxAttempts: 4,
  payload: z.strictObject({ text: z.string() }),
  run: async () => {
    runs += 1;
    return { outcomeCode: 'reminded' };
  },
});

describe('delayed jobs are rows first', () => {
  let harness: WorkerHarness;
  let send: (input: SendJobInput) => ReturnType<typeof sendJob>;
  beforeAll(async () => {
    harness = await createWorkerHarness('delayed', [reminder]);
    const deps = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloads: harness.payloads,
      delayed: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: [reminder], clock: harness.clock },
    };
    send = (input) => sendJob(deps, input);
  });
  afterAll(async () => {
    await harness.close();
  });

  const job = (operationId: string, delaySeconds: number, text = 'pay rent') => ({
    tenantId: 'acme',
    operationId,
    jobType: 'reminder',
    payload: { text },
    delaySeconds,
  });

  it('the queued row exists before the message: show and ls see it, cancel works at once', async () => {
    const now = harness.clock.now();

    const sent = await send(job('later-1', 60));
    const cancelMe = await send(job('later-2', 60));

    expect(sent.row).toMatchObject({ outcome: 'created', state: 'queued', availableAt: now + 60_000, wake: 'sent' });
    expect(cancelMe.row?.outcome).toBe('created');
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'later-1' }))).toMatchObject({
      state: 'queued',
      attempts: 0,
      fence: 0,
      maxAttempts: 4,
      availableAt: now + 60_000,
    });
    const io = captureIo();
    const target = harnessTargetFlags(harness);
    expect(await main(['ls', '--state', 'queued', '--tenant', 'acme', '--json', ...target], io)).toBe(0);
    expect(io.stdout()).toContain('later-1');
    const cancelled = await cancelItem(
      adminDeps(),
      { tenantId: 'acme', operationId: 'later-2' },
      {
        actor: 'ops',
        reason: 'customer paid already',
      },
    );
    expect(cancelled).toMatchObject({ state: 'cancelled', fence: 1 });
    await drainQueue(harness.sqs, harness.queueUrl);
  });

  it('a replay returns the stored state and sends nothing; a different payload is a conflict, nothing sent', async () => {
    await send(job('later-3', 30));
    await drainQueue(harness.sqs, harness.queueUrl);

    const replay = await send(job('later-3', 30));
    const conflict = await send(job('later-3', 30, 'other text')).catch((error: unknown) => error);

    expect(replay.row).toEqual({ outcome: 'replay', state: 'queued', availableAt: expect.any(Number) });
    expect(replay.messageId).toBe('');
    expect(conflict).toBeInstanceOf(PayloadConflictError);
    expect(await drainQueue(harness.sqs, harness.queueUrl)).toHaveLength(0);
  });

  it('a lost wake-up is found by the sweeper once due; the job runs with one write more than an immediate job', async () => {
    runs = 0;
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'later-lost' });
    const producer = countRequests(harness.client);
    await send(job('later-lost', 1));
    const producerWrites = { ...producer.byCommand };
    producer.detach();
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // until SQS delivers the delayed message…
    expect(await drainQueue(harness.sqs, harness.queueUrl)).toHaveLength(1); // …which is then lost
    harness.clock.advance(1_001);

    const swept = await sweep({
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      clock: harness.clock,
      dueGraceMs: 0,
    });
    const worker = harness.worker();
    const workerRequests = countRequests(worker.client);
    await harness.poll(worker, { waitTimeSeconds: 2 });

    expect(swept.resignalled).toBeGreaterThanOrEqual(1);
    expect(runs).toBe(1);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', attempts: 1, fence: 1 });
    // The producer writes the payload body and the queued row (the extra write); it reads the fence epoch the row
    // starts in at most once (its store, kept per config, caches the epoch); the worker claims and completes.
    const { GetItemCommand: epochReads = 0, ...writes } = producerWrites;
    expect(writes).toEqual({ PutItemCommand: 2 });
    expect(epochReads).toBeLessThanOrEqual(1);
    expect(workerRequests.writes()).toBe(2);
    expect(workerRequests.byCommand.UpdateItemCommand).toBe(2);
  });

  it('an immediate job keeps the two-write path: no row before the worker creates it claimed', async () => {
    const producer = countRequests(harness.client);
    await send({ tenantId: 'acme', operationId: 'now-1', jobType: 'reminder', payload: { text: 'now' } });
    const producerWrites = { ...producer.byCommand };
    producer.detach();
    const before = await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'now-1' }));
    const worker = harness.worker();
    const workerRequests = countRequests(worker.client);

    await harness.poll(worker);

    expect(before).toBeUndefined();
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'now-1' }))).toMatchObject({
      state: 'succeeded',
    });
    expect(producerWrites).toEqual({ PutItemCommand: 1 }); // the payload body only
    // create-claimed, complete; the reads are the payload body and the fence epoch (a fresh worker's store)
    expect(workerRequests.byCommand).toEqual({ PutItemCommand: 1, UpdateItemCommand: 1, GetItemCommand: 2 });
  });

  it('a delayed job sent for another job version never runs: every wake-up is quarantined, the row untouched', async () => {
    runs = 0;
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'later-v2' });
    const sent = await send({ ...job('later-v2', 1), jobVersion: 2 });
    const row = await harness.store.get(identity);
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // the delayed wake-up becomes visible
    const worker = harness.worker();
    await harness.poll(worker, { waitTimeSeconds: 2 }); // the producer's wake-up (it names version 2)
    harness.clock.advance(1_001);

    const swept = await sweep({
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      clock: harness.clock,
      dueGraceMs: 0,
    });
    await harness.poll(worker, { waitTimeSeconds: 2 }); // the sweeper's wake-up, read from the row
    await harness.send({
      tenantId: 'acme',
      operationId: 'later-v2',
      jobType: 'reminder',
      payload: { text: 'pay rent' },
    });
    await harness.poll(worker, { waitTimeSeconds: 2 }); // a copy naming no version at all

    expect(sent.row?.outcome).toBe('created');
    expect(row).toMatchObject({ state: 'queued', jobVersion: 2 });
    expect(swept.resignalled).toBeGreaterThanOrEqual(1);
    expect(runs).toBe(0);
    const after = await harness.store.get(identity);
    expect(after).toMatchObject({ state: 'queued', fence: 0, attempts: 0, jobVersion: 2 });
    expect(worker.telemetry.counts.Quarantined).toBe(3);
  });

  it('a delayed send whose row committed but whose response was lost is recognised and sends its wake-up', async () => {
    const producerClient = testDocumentClient();
    const deps = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloads: harness.payloads,
      delayed: { client: producerClient, jobsTable: harness.tables.jobsTable, jobs: [reminder], clock: harness.clock },
    };
    const drop = dropNextResponse(producerClient, 'PutCommand');

    const sent = await sendJob(deps, job('later-lost-response', 1));
    producerClient.destroy();

    expect(drop.dropped()).toBe(1);
    expect(sent.row).toMatchObject({ outcome: 'created', state: 'queued', wake: 'sent' });
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // until SQS delivers the delayed wake-up
    const messages = await drainQueue(harness.sqs, harness.queueUrl);
    expect(messages.map((message) => JSON.parse(message.body).operationId)).toEqual(['later-lost-response']);
  });

  function adminDeps() {
    return { store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl, payloadsTable: 'unused' };
  }
});
