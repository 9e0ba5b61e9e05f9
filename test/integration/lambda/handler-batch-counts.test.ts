import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ManualClock } from '../../../lib/clock.js';
import { payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createSqsWorkerHandler, type SqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { parseLease } from '../../../lib/store/schemas.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import { createTestTables, type TestTables, testDocumentClient, testHandlerConfig } from '../../support/engine.js';
import { expectCreatedClaim } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { countRequests } from '../../support/request-counter.js';

/** The configuration names queues; no job here retries, so nothing is sent to them. */
const UNUSED_QUEUE = {
  queueUrl: 'http://127.0.0.1:1/000000000000/unused',
  dlqUrl: 'http://127.0.0.1:1/000000000000/dlq',
};
const JOB_TYPE = 'batch-count';

/** The payload of an operation, recomputed from its ref (the resolver needs no I/O, as in figure 9). */
const payloadOf = (ref: string) => ({ order: ref });

/**
 * Per batch through the deployed handler (figure 9's path): what a job costs in requests and log lines. Counts,
 * never time: a change that adds a request or a log line per record fails here.
 */
describe('the SQS worker handler: requests and INFO lines per job of a batch', () => {
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
