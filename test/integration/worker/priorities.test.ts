import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { pollOnce } from '../../../infra/local/sqs-event-source.js';
import { ManualClock } from '../../../lib/clock.js';
import { InvalidInputError, RetryableJobError } from '../../../lib/errors.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createSqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { type SendJobInput, sendJob } from '../../../lib/messaging/producer.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import {
  createTestQueue,
  createTestTables,
  type TestTables,
  testDocumentClient,
  testHandlerConfig,
  testSqsClient,
} from '../../support/engine.js';

/** Visible and in-flight messages of a queue. */
async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const { visible, inFlight } = await queueCounts(sqs, queueUrl);
  return { visible, inFlight };
}

/** Visible, in-flight and delayed messages of a queue. */
async function queueCounts(sqs: SQSClient, queueUrl: string) {
  const names = [
    'ApproximateNumberOfMessages',
    'ApproximateNumberOfMessagesNotVisible',
    'ApproximateNumberOfMessagesDelayed',
  ] as const;
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...names] }),
  );
  const count = (name: (typeof names)[number]) => Number(Attributes?.[name] ?? 0);
  return { visible: count(names[0]), inFlight: count(names[1]), delayed: count(names[2]) };
}

/** The order jobs ran in, by operation id. */
const order: string[] = [];
const report = defineJob({
  type: 'tenant-report',
  version: 1,
  target: 'B',
  payload: z.strictObject({ n: z.number() }),
  run: async (ctx) => {
    order.push(ctx.identity.operationId);
    return { outcomeCode: 'built' };
  },
});
let flaky = 0;
// Declared bulk: its retry's wake-up goes back to the bulk lane, whichever lane it came in.
const nightlyExport = defineJob({
  type: 'nightly-export',
  version: 1,
  target: 'B',
  payload: z.strictObject({ n: z.number() }),
  flow: { priority: 'bulk' },
  retry: { baseDelayMs: 0, maxDelayMs: 0 },
  run: async () => {
    flaky += 1;
    if (flaky === 1) throw new RetryableJobError('export_busy', 'try again');
    return { outcomeCode: 'exported' };
  },
});

// One at a time across the deployment; a waiting job re-checks only after 15 minutes (no test waits for that).
let releaseHolder: () => void = () => {};
let holderRunning = false;
const limitedSync = defineJob({
  type: 'limited-sync',
  version: 1,
  target: 'B',
  payload: z.strictObject({ n: z.number() }),
  flow: { concurrency: { type: 1, recheckMs: 900_000 } },
  run: async (ctx) => {
    order.push(ctx.identity.operationId);
    if (ctx.identity.operationId === 'slot-holder') {
      holderRunning = true;
      await new Promise<void>((resolve) => {
        releaseHolder = resolve;
      });
    }
    return { outcomeCode: 'synced' };
  },
});

describe('priorities: a bulk lane the producer or the job type chooses, served beside the urgent lane', () => {
  let tables: TestTables;
  let client: DynamoDBDocumentClient;
  let sqs: SQSClient;
  let urgent: { queueUrl: string; dlqUrl: string };
  let bulkQueueUrl: string;
  let payloads: PayloadStore;
  const clock = new ManualClock(Date.now());
  let send: (input: SendJobInput) => ReturnType<typeof sendJob>;

  beforeAll(async () => {
    tables = await createTestTables('lanes');
    client = testDocumentClient();
    sqs = testSqsClient();
    urgent = await createTestQueue(sqs, 'lanes');
    bulkQueueUrl = (await createTestQueue(sqs, 'lanes-bulk')).queueUrl;
    payloads = new PayloadStore(client, tables.payloadsTable, clock);
    send = (input) => sendJob({ sqs, queueUrl: urgent.queueUrl, bulkQueueUrl, payloads }, input);
  });
  afterAll(async () => {
    await tables.drop();
    client.destroy();
    sqs.destroy();
  });

  function worker() {
    const telemetry = countingTelemetry();
    const config = { ...testHandlerConfig(tables, urgent), bulkQueueUrl };
    const jobs = [report, nightlyExport, limitedSync];
    return createSqsWorkerHandler({ jobs, config, clock, telemetry, heartbeatIntervalMs: 0 });
  }

  it("a quiet tenant's urgent job runs before a noisy tenant's earlier flood of bulk jobs is through", async () => {
    for (let n = 0; n < 30; n += 1) {
      await send({
        tenantId: 'noisy',
        operationId: `bulk-${n}`,
        jobType: 'tenant-report',
        payload: { n },
        priority: 'bulk',
      });
    }
    await send({ tenantId: 'quiet', operationId: 'urgent-1', jobType: 'tenant-report', payload: { n: 1 } });
    // The two event source mappings, as the construct wires them: the bulk one may use 1 of the function's 2
    // concurrent batches (its maximum concurrency), the urgent one what is left; batches of 5.
    const handler = worker();
    for (let round = 0; round < 20 && order.length < 31; round += 1) {
      await Promise.all([
        pollOnce({ sqs, queueUrl: bulkQueueUrl, handler, batchSize: 5 }),
        pollOnce({ sqs, queueUrl: urgent.queueUrl, handler, batchSize: 5 }),
      ]);
    }
    expect(order).toHaveLength(31);
    // At most the bulk mapping's first batch ran before it: the flood queued before it did not delay it.
    expect(order.indexOf('urgent-1')).toBeLessThanOrEqual(5);
    expect(order.filter((op) => op.startsWith('bulk-'))).toHaveLength(30);
  });

  it("a job type declared bulk retries in the bulk lane; 'bulk' with no bulk queue is refused, nothing sent", async () => {
    await send({ tenantId: 'acme', operationId: 'export-1', jobType: 'nightly-export', payload: { n: 1 } });
    const handler = worker();
    // It came in the urgent lane (the producer chose none); its retry's wake-up goes to the bulk lane.
    expect(await pollOnce({ sqs, queueUrl: urgent.queueUrl, handler })).toMatchObject({ received: 1, failed: 0 });
    expect(await queueDepth(sqs, urgent.queueUrl)).toEqual({ visible: 0, inFlight: 0 });
    expect((await queueDepth(sqs, bulkQueueUrl)).visible).toBe(1);
    expect(await pollOnce({ sqs, queueUrl: bulkQueueUrl, handler })).toMatchObject({ received: 1, failed: 0 });
    expect(flaky).toBe(2);

    const noBulk = sendJob(
      { sqs, queueUrl: urgent.queueUrl, payloads },
      { tenantId: 'acme', operationId: 'export-2', jobType: 'nightly-export', payload: { n: 2 }, priority: 'bulk' },
    );
    await expect(noBulk).rejects.toBeInstanceOf(InvalidInputError);
    expect(await payloads.get({ tenantId: 'acme', operationId: 'export-2' })).toBeUndefined();
  });

  it('a freed slot wakes a bulk job in the bulk lane, and its own re-check goes there too, never the urgent lane', async () => {
    const handler = worker();
    await send({ tenantId: 'acme', operationId: 'slot-holder', jobType: 'limited-sync', payload: { n: 1 } });
    const holding = pollOnce({ sqs, queueUrl: urgent.queueUrl, handler });
    for (let tries = 0; tries < 200 && !holderRunning; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(holderRunning).toBe(true);
    await send({
      tenantId: 'acme',
      operationId: 'bulk-waiter',
      jobType: 'limited-sync',
      payload: { n: 2 },
      priority: 'bulk',
    });
    // The bulk job finds the type's one slot held: it waits queued, its re-check delayed in its own (bulk) lane.
    expect(await pollOnce({ sqs, queueUrl: bulkQueueUrl, handler })).toMatchObject({ received: 1, failed: 0 });
    expect(await queueCounts(sqs, bulkQueueUrl)).toMatchObject({ visible: 0, delayed: 1 });

    releaseHolder();
    expect(await holding).toMatchObject({ received: 1, failed: 0 });
    // The holder's release woke the waiter at once: in the bulk lane; nothing reached the urgent lane.
    expect(await queueCounts(sqs, urgent.queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    expect(await queueCounts(sqs, bulkQueueUrl)).toMatchObject({ visible: 1, delayed: 1 });
    expect(await pollOnce({ sqs, queueUrl: bulkQueueUrl, handler })).toMatchObject({ received: 1, failed: 0 });
    expect(order.filter((op) => op === 'bulk-waiter')).toHaveLength(1);
  });
});
