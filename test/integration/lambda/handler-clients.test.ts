import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ManualClock } from '../../../lib/clock.js';
import { FenceRejectedError, OwnershipLostError } from '../../../lib/errors.js';
import { FencedRecords } from '../../../lib/fenced/records.js';
import { payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { mapBounded } from '../../../lib/internal/bounded-parallel.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createHandlerClients } from '../../../lib/lambda/clients.js';
import { createJobHandlerClients } from '../../../lib/lambda/job-clients.js';
import { createSqsWorkerHandler, type SqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import { createTestTables, type TestTables, testDocumentClient, testHandlerConfig } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim, expectRejection } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { countRequests } from '../../support/request-counter.js';

const LEASE = parseLease({ owner: 'handler-worker', leaseMs: 60_000 });
/** The configuration names queues; these tests never send to them. */
const UNUSED_QUEUE = {
  queueUrl: 'http://127.0.0.1:1/000000000000/unused',
  dlqUrl: 'http://127.0.0.1:1/000000000000/dlq',
};

/**
 * The clients every Lambda handler builds: one DynamoDB client whose middleware stack runs every request, the
 * store's plain requests included. The worker's (createJobHandlerClients) is a DocumentClient, the sweeper's and the
 * admin's (createHandlerClients) a plain DynamoDBClient; both are checked. A client that reused one resolved handler
 * per command type (the SDK's cacheMiddleware) would break the last test; one that kept its first request's input
 * (a cached DocumentClient command) would write one job's values into another's row and break the first.
 */
describe.each([
  ['the worker’s DocumentClient', createJobHandlerClients],
  ['the sweeper’s and admin’s plain client', createHandlerClients],
])('%s: every store write runs the client’s own middleware stack', (_kind, create) => {
  let tables: TestTables;
  let clients: ReturnType<typeof create>;
  const clock = new ManualClock();
  const reader = testDocumentClient();

  beforeAll(async () => {
    tables = await createTestTables('handler-clients');
    clients = create(testHandlerConfig(tables, UNUSED_QUEUE), clock);
  });
  afterAll(async () => {
    clients.client.destroy();
    reader.destroy();
    await tables.drop();
  });

  it('sixty-four jobs claimed and completed concurrently: each row holds its own values, two writes a job', async () => {
    const counter = countRequests(clients.client);
    const jobs = Array.from({ length: 64 }, (_, index) => ({ identity: newIdentity('tenant-handler'), index }));

    await mapBounded(jobs, 16, async ({ identity, index }) => {
      const claim = expectCreatedClaim(
        await clients.store.enqueue(newWorkItem(identity, { payloadHash: payloadHash({ index }) }), LEASE),
      );
      await clients.store.complete(claim, parseJobOutcome({ outcomeCode: `done-${index}` }));
    });

    // One read of the fence epoch, shared by the sixty-four creations of a cold store.
    expect(counter.byCommand).toEqual({ GetItemCommand: 1, PutItemCommand: 64, UpdateItemCommand: 64 });
    counter.detach();
    const check = new WorkItemStore({ client: reader, tableName: tables.jobsTable, clock });
    for (const { identity, index } of jobs) {
      expect(await check.get(identity, { consistent: true })).toMatchObject({
        tenantId: identity.tenantId,
        operationId: identity.operationId,
        state: 'succeeded',
        payloadHash: payloadHash({ index }),
        outcomeCode: `done-${index}`,
        fence: 1,
      });
    }
  });

  it('a failed condition still comes back as the current item: a stale holder is refused, the newer one lands', async () => {
    const { client, store } = clients;
    const identity = newIdentity('tenant-handler');
    const stale = expectCreatedClaim(
      await store.enqueue(newWorkItem(identity), parseLease({ ...LEASE, leaseMs: 1_000 })),
    );
    clock.advance(2_000);
    const fresh = expectClaimed(await store.claim(identity, parseLease({ owner: 'second', leaseMs: 60_000 })));

    const record = { tableName: tables.jobsTable, key: { pk: `record#${identity.operationId}`, sk: 'record' } };
    await new FencedRecords({ client, claim: fresh }).put(record, { amountCents: 2 });
    await expectRejection(
      new FencedRecords({ client, claim: stale }).put(record, { amountCents: 1 }),
      FenceRejectedError,
    );
    await expectRejection(store.complete(stale, parseJobOutcome({ outcomeCode: 'stale' })), OwnershipLostError);
    await store.complete(fresh, parseJobOutcome({ outcomeCode: 'fresh' }));

    expect(await store.get(identity, { consistent: true })).toMatchObject({ state: 'succeeded', outcomeCode: 'fresh' });
    const written = await reader.send(
      new GetCommand({ TableName: tables.jobsTable, Key: record.key, ConsistentRead: true }),
    );
    expect(written.Item).toMatchObject({ amountCents: 2, writer_epoch: fresh.fence });
  });

  it('an observer or a fault added after the client’s first writes reaches the store’s next write, and its removal too', async () => {
    const { client, store } = clients;
    const first = newIdentity('tenant-handler');
    await store.complete(
      expectCreatedClaim(await store.enqueue(newWorkItem(first), LEASE)),
      parseJobOutcome({ outcomeCode: 'ok' }),
    );

    const observer = countRequests(client);
    client.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('engine unreachable (test)'), { name: 'ServiceUnavailable', $fault: 'server' });
      },
      { step: 'finalizeRequest', priority: 'low', name: 'late-break-engine' },
    );
    const second = newIdentity('tenant-handler');
    await expectRejection(store.enqueue(newWorkItem(second), LEASE), Error);
    expect(observer.byCommand.PutItemCommand).toBeGreaterThanOrEqual(1);
    client.middlewareStack.remove('late-break-engine');

    const claim = expectCreatedClaim(await store.enqueue(newWorkItem(second), LEASE));
    await store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }));
    expect(await store.get(second, { consistent: true })).toMatchObject({ state: 'succeeded' });
    expect(observer.byCommand.UpdateItemCommand).toBe(1);
    observer.detach();
  });
});

const JOB_TYPE = 'batch-count';

/**
 * While set, each run of the job waits here until `expected` runs have started (or, so a serialized batch fails
 * instead of hanging, until the guard passes): the most that were ever waiting at once is how many ran together.
 */
let batchGate: { expected: number; waiting: number; most: number; open: () => void; opened: Promise<void> } | undefined;
/** Only bounds a failing run; nothing is measured against it. */
const GATE_GUARD_MS = 2_000;

function openBatchGate(expected: number): NonNullable<typeof batchGate> {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  batchGate = { expected, waiting: 0, most: 0, open, opened };
  return batchGate;
}

async function passBatchGate(): Promise<void> {
  const gate = batchGate;
  if (!gate) return;
  gate.waiting += 1;
  gate.most = Math.max(gate.most, gate.waiting);
  if (gate.waiting === gate.expected) gate.open();
  await Promise.race([gate.opened, new Promise((resolve) => setTimeout(resolve, GATE_GUARD_MS))]);
  gate.waiting -= 1;
}

/** The payload of an operation, recomputed from its ref (the resolver needs no I/O, as in figure 9). */
const payloadOf = (ref: string) => ({ order: ref });

/**
 * Per batch through the deployed handler (figure 9's path): what a job costs in requests and log lines, and how many
 * jobs of a batch run at once. Counts, never time: a change that adds a request or a log line per record, or runs a
 * batch's records one after another, fails here.
 */
describe('the SQS worker handler: requests, INFO lines and concurrency per batch', () => {
  let tables: TestTables;
  let handler: SqsWorkerHandler;
  const clock = new ManualClock();
  const telemetry = countingTelemetry();
  const reader = testDocumentClient();

  beforeAll(async () => {
    tables = await createTestTables('batch-counts');
    const recordOf = (identity: JobIdentity) => ({
      tableName: tables.jobsTable,
      key: { pk: `record#${identity.operationId}`, sk: 'record' },
    });
    const job = defineJob({
      type: JOB_TYPE,
      version: 1,
      target: 'B',
      payload: z.strictObject({ order: z.string() }),
      run: async (ctx) => {
        await passBatchGate();
        await ctx.records.put(recordOf(ctx.identity), { order: ctx.payload.order });
        return { outcomeCode: 'done' };
      },
    });
    handler = createSqsWorkerHandler({
      jobs: [job],
      config: testHandlerConfig(tables, UNUSED_QUEUE),
      clock,
      telemetry,
      heartbeatIntervalMs: 0,
      payloadResolver: async (ref) => payloadOf(ref),
    });
  });
  afterAll(async () => {
    handler.client.destroy();
    reader.destroy();
    await tables.drop();
  });

  /** An event source batch of first deliveries, one record per identity. */
  const eventOf = (identities: readonly JobIdentity[]): SQSEvent => ({
    Records: identities.map((identity, index) => ({
      messageId: `m-${identity.operationId}`,
      receiptHandle: `rh-${index}`,
      body: serializeEnvelope({
        v: 1,
        kind: 'job',
        ...identity,
        jobType: JOB_TYPE,
        payloadHash: payloadHash(payloadOf(identity.operationId)),
        payload: { ref: identity.operationId },
      }),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 'AROATESTPRODUCER',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:jobs',
      awsRegion: 'us-east-1',
    })),
  });
  const infoLines = () => telemetry.events.filter((event) => event.level === 'info');

  it('a batch of ten: one create-claimed put, one fenced record put and one completion per job; one INFO line per job', async () => {
    const identities = Array.from({ length: 10 }, () => newIdentity('tenant-batch'));
    const counter = countRequests(handler.client);
    telemetry.events.length = 0;

    const response = await handler(eventOf(identities));

    expect(response.batchItemFailures).toEqual([]);
    // The fence epoch is read once for the batch (a cold store), not per record.
    expect(counter.byCommand).toEqual({ GetItemCommand: 1, PutItemCommand: 20, UpdateItemCommand: 10 });
    expect(infoLines().map((line) => line.message)).toEqual(Array(10).fill('attempt ended'));
    expect(infoLines().map((line) => line.fields)).toEqual(
      Array(10).fill(expect.objectContaining({ takeover: false, state: 'succeeded', fence: 1, attempt: 1 })),
    );
    counter.detach();
    const store = new WorkItemStore({ client: reader, tableName: tables.jobsTable, clock });
    for (const identity of identities) {
      expect(await store.get(identity, { consistent: true })).toMatchObject({ state: 'succeeded', fence: 1 });
    }
  });

  it('the ten records of a batch run their jobs at the same time, not one after another', async () => {
    const identities = Array.from({ length: 10 }, () => newIdentity('tenant-batch'));
    const gate = openBatchGate(identities.length);
    try {
      const response = await handler(eventOf(identities));
      expect(response.batchItemFailures).toEqual([]);
    } finally {
      batchGate = undefined;
    }
    expect(gate.most).toBe(10);
  });

  it('a takeover says so when it claims and again when its attempt ends', async () => {
    const identity = newIdentity('tenant-batch');
    const stalled = new WorkItemStore({ client: reader, tableName: tables.jobsTable, clock });
    const hash = payloadHash(payloadOf(identity.operationId));
    expectCreatedClaim(
      await stalled.enqueue(
        newWorkItem(identity, { jobType: JOB_TYPE, payloadHash: hash, payloadRef: identity.operationId }),
        parseLease({ owner: 'stalled-worker', leaseMs: 1_000, jobVersion: 1 }),
      ),
    );
    clock.advance(2_000);
    telemetry.events.length = 0;

    const response = await handler(eventOf([identity]));

    expect(response.batchItemFailures).toEqual([]);
    expect(infoLines().map((line) => [line.message, line.fields.takeover, line.fields.fence])).toEqual([
      ['claimed', true, 2],
      ['attempt ended', true, 2],
    ]);
  });
});
