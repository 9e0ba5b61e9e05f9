import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Message, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSqsEvent } from '../../../infra/local/sqs-event-source.js';
import type { LeasefenceConfig } from '../../../lib/config.js';
import { MetricName } from '../../../lib/metric-names.js';
import { ShadowFinding } from '../../../lib/shadow/findings.js';
import type { ShadowIdentity } from '../../../lib/shadow/recorder.js';
import { buildShadowReport } from '../../../lib/shadow/report.js';
import { type ShadowOptions, shadowHandler, shadowRecordHandler } from '../../../lib/shadow/wrap.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testDocumentClient,
  testHandlerConfig,
  testSqsClient,
  uniqueName,
} from '../../support/engine.js';
import { countRequests } from '../../support/request-counter.js';

/** The team's existing message format: a refund request. */
interface RefundBody {
  tenant: string;
  refundId: string;
  amount: number;
}

/** The team's identity function: message ▶ identity leasefence would key it by. */
function identifyRefund(record: SQSRecord): ShadowIdentity {
  const body = JSON.parse(record.body) as RefundBody;
  return { tenantId: body.tenant, operationId: body.refundId, jobType: 'refund', payload: body };
}

/** The external effect: refunds paid, per refund id (what a double-run costs). */
class Payouts {
  readonly paid = new Map<string, number>();
  pay(body: RefundBody): void {
    this.paid.set(body.refundId, (this.paid.get(body.refundId) ?? 0) + 1);
  }
}

/** A gate a stalled worker waits on; `entered` resolves once `count` executions are waiting. */
function stallGate(count: number) {
  let release = () => {};
  const released = new Promise<void>((done) => {
    release = done;
  });
  let waiting = 0;
  let entered = () => {};
  const allEntered = new Promise<void>((done) => {
    entered = done;
  });
  return {
    release,
    allEntered,
    wait: async () => {
      waiting += 1;
      if (waiting === count) entered();
      await released;
    },
  };
}

/** A Lambda context as the runtime passes it: only the remaining time matters to Powertools idempotency. */
function lambdaContext(remainingMs: number): Context {
  return { getRemainingTimeInMillis: () => remainingMs, awsRequestId: 'test', functionName: 'refunds' } as Context;
}

describe('shadow mode beside an existing SQS consumer', () => {
  let tables: TestTables;
  let sqs: SQSClient;
  let config: LeasefenceConfig;
  let idempotencyTable: string;
  const raw = new DynamoDBClient({
    endpoint: engineEndpoints().dynamo,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

  beforeAll(async () => {
    tables = await createTestTables('shadow');
    sqs = testSqsClient();
    idempotencyTable = uniqueName('powertools-idempotency');
    await raw.send(
      new CreateTableCommand({
        TableName: idempotencyTable,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      }),
    );
  });
  afterAll(async () => {
    await raw.send(new DeleteTableCommand({ TableName: idempotencyTable }));
    raw.destroy();
    await tables.drop();
    sqs.destroy();
  });

  /** A fresh queue and the handler config on the test's tables. */
  async function freshQueue() {
    const queue = await createTestQueue(sqs, 'shadow');
    config = testHandlerConfig(tables, queue);
    return queue;
  }

  async function send(queueUrl: string, bodies: RefundBody[]): Promise<void> {
    for (const body of bodies)
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
  }

  /**
   * A batch as the event source delivers it: `count` distinct messages. Visibility 0 leaves them visible at once
   * (their timeout lapsed), so the next receive gets them again; nothing is deleted.
   */
  async function receive(queueUrl: string, visibilityTimeout: number, count = 1): Promise<SQSEvent> {
    const messages = new Map<string, Message>();
    for (let round = 0; round < 50 && messages.size < count; round += 1) {
      const output = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: visibilityTimeout,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      for (const message of output.Messages ?? []) messages.set(message.MessageId ?? '', message);
    }
    expect(messages.size).toBe(count);
    return toSqsEvent([...messages.values()], 'arn:aws:sqs:us-east-1:000000000000:refunds');
  }

  function shadowOptions(extra: Partial<ShadowOptions> = {}): ShadowOptions {
    return { identify: identifyRefund, config, ...extra };
  }

  async function readShadow() {
    const client = testDocumentClient();
    try {
      return await new OperatorStore({ client, tableName: tables.jobsTable }).shadow.readAll();
    } finally {
      client.destroy();
    }
  }

  async function report() {
    return buildShadowReport(await readShadow());
  }

  async function rowOf(tenantId: string, operationId: string) {
    return (await readShadow()).rows.find((row) => row.tenantId === tenantId && row.operationId === operationId);
  }

  it('a plain handler: result passes through, one conditional write per start and per end, no reads', async () => {
    // prepare
    const queue = await freshQueue();
    const tenant = uniqueName('plain');
    await send(queue.queueUrl, [{ tenant, refundId: 'r-1', amount: 5 }]);
    const payouts = new Payouts();
    const existing = async (event: SQSEvent) => {
      for (const record of event.Records) payouts.pay(JSON.parse(record.body));
      return { handled: event.Records.length };
    };
    const wrapped = shadowHandler(existing, shadowOptions());
    const counter = countRequests(wrapped.client);
    // act
    const result = await wrapped(await receive(queue.queueUrl, 30));
    // assert
    expect(result).toEqual({ handled: 1 });
    expect(counter.byCommand).toEqual({ UpdateItemCommand: 2 });
    expect(counter.reads()).toBe(0);
    const row = await rowOf(tenant, 'r-1');
    expect(row?.fence).toBe(1);
    expect(row?.jobType).toBe('refund');
    expect(row?.executions).toEqual([
      { s: expect.any(Number), l: expect.any(Number), h: expect.any(String), e: expect.any(Number), o: 'succeeded' },
    ]);
  });

  it("a handler's error passes through unchanged and its messages are recorded as failed", async () => {
    const queue = await freshQueue();
    const tenant = uniqueName('thrower');
    await send(queue.queueUrl, [{ tenant, refundId: 'r-1', amount: 5 }]);
    const failure = new Error('downstream is down');
    const wrapped = shadowHandler(async (_event: SQSEvent) => {
      throw failure;
    }, shadowOptions());
    await expect(wrapped(await receive(queue.queueUrl, 30))).rejects.toBe(failure);
    expect((await rowOf(tenant, 'r-1'))?.executions.map((execution) => execution.o)).toEqual(['failed']);
  });

  it('failing shadow writes change nothing for the handler: counted, never thrown', async () => {
    // prepare: a jobs table that does not exist
    const queue = await freshQueue();
    await send(queue.queueUrl, [{ tenant: uniqueName('nowrite'), refundId: 'r-1', amount: 5 }]);
    const telemetry = countingTelemetry();
    const payouts = new Payouts();
    const batch = async (event: SQSEvent): Promise<SQSBatchResponse> =>
      processPartialResponse(
        event,
        async (record: SQSRecord) => payouts.pay(JSON.parse(record.body)),
        new BatchProcessor(EventType.SQS),
      );
    const wrapped = shadowHandler(batch, {
      ...shadowOptions({ telemetry }),
      config: { ...config, jobsTable: uniqueName('missing-table') },
    });
    // act
    const result = await wrapped(await receive(queue.queueUrl, 30));
    // assert: the start failed, so no end was attempted; the payout happened once
    expect(result).toEqual({ batchItemFailures: [] });
    expect(payouts.paid.size).toBe(1);
    expect(telemetry.counts[MetricName.ShadowWriteFailed]).toBe(1);
  });

  it('a message the team cannot identify is run unchanged and counted', async () => {
    const queue = await freshQueue();
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'not json' }));
    const telemetry = countingTelemetry();
    const wrapped = shadowHandler(async (event: SQSEvent) => event.Records.length, shadowOptions({ telemetry }));
    expect(await wrapped(await receive(queue.queueUrl, 30))).toBe(1);
    expect(telemetry.counts[MetricName.ShadowIdentityFailed]).toBe(1);
    expect(telemetry.counts[MetricName.ShadowWriteFailed]).toBeUndefined();
  });

  /**
   * The seeds' stale-worker scenario on Powertools idempotency: worker A takes three refunds and stalls; the
   * messages become visible again; worker B takes them. `inProgressMs` is how long A's in-progress records hold
   * (Powertools' in-progress expiry is the Lambda's remaining time).
   */
  async function staleWorkerScenario(tenant: string, inProgressMs: number) {
    const queue = await freshQueue();
    const refunds = ['r-1', 'r-2', 'r-3'].map((refundId) => ({ tenant, refundId, amount: 10 }));
    await send(queue.queueUrl, refunds);
    const payouts = new Payouts();
    const gate = stallGate(refunds.length);
    let stalling = true;
    const payRefund = async (record: SQSRecord) => {
      if (stalling) await gate.wait();
      payouts.pay(JSON.parse(record.body));
      return 'paid';
    };
    const persistenceStore = new DynamoDBPersistenceLayer({ tableName: idempotencyTable, awsSdkV3Client: raw });
    const consumer = (remainingMs: number) => {
      const idempotency = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).[tenant, refundId]' });
      const processRecord = makeIdempotent(shadowRecordHandler(payRefund, shadowOptions()), {
        persistenceStore,
        config: idempotency,
      });
      return async (event: SQSEvent) => {
        idempotency.registerLambdaContext(lambdaContext(remainingMs));
        return processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS), {
          throwOnFullBatchFailure: false,
        });
      };
    };
    // act: A stalls inside the effect; its messages lapse (visibility 0) and B receives them
    const workerA = consumer(inProgressMs)(await receive(queue.queueUrl, 0, refunds.length));
    await gate.allEntered;
    stalling = false;
    await new Promise((wait) => setTimeout(wait, 20)); // past A's in-progress expiry when it is 1 ms
    const workerB = await consumer(900_000)(await receive(queue.queueUrl, 0, refunds.length));
    gate.release();
    const resultA = await workerA;
    // the redeliveries B failed come back once A is done
    const workerC = await consumer(900_000)(await receive(queue.queueUrl, 30, refunds.length));
    return { payouts, refunds, resultA, workerB, workerC };
  }

  it('stale worker, in-progress lock that lapses: each refund paid twice, and the report names each one', async () => {
    const tenant = uniqueName('stale');
    const { payouts, refunds } = await staleWorkerScenario(tenant, 1);
    // the existing mechanism let every refund run twice
    expect(refunds.map((refund) => payouts.paid.get(refund.refundId))).toEqual([2, 2, 2]);
    const refund = (await report()).jobTypes.find((entry) => entry.jobType === 'refund');
    const named = (finding: ShadowFinding) =>
      (refund?.examples[finding] ?? []).filter((example) => example.tenantId === tenant).map((e) => e.operationId);
    expect(named(ShadowFinding.concurrent).sort()).toEqual(['r-1', 'r-2', 'r-3']);
    expect(named(ShadowFinding.ranTwice).sort()).toEqual(['r-1', 'r-2', 'r-3']);
    expect(named(ShadowFinding.afterCompletion)).toEqual([]);
  });

  it('stale worker, correctly guarded (the in-progress lock outlives the stall): each refund paid once, report zero', async () => {
    // prepare: tables of their own, so the report sees only this scenario
    const own = await createTestTables('shadow-guarded');
    const outer = tables;
    tables = own;
    try {
      const { payouts, refunds, workerB, workerC } = await staleWorkerScenario(uniqueName('guarded'), 900_000);
      expect(refunds.map((refund) => payouts.paid.get(refund.refundId))).toEqual([1, 1, 1]);
      // B was refused (in progress), C got the stored results: neither ran the effect
      expect(workerB.batchItemFailures).toHaveLength(3);
      expect(workerC.batchItemFailures).toHaveLength(0);
      const result = await report();
      expect(result.verdict).toBe('none_recorded');
      expect(result.doubleRuns).toBe(0);
      expect(result.executions).toBe(3);
    } finally {
      tables = outer;
      await own.drop();
    }
  });

  it('a replay the mechanism did not recognise, and a payload conflict it let through', async () => {
    // prepare: idempotency keyed on the message id, so a re-sent request is new to it
    const queue = await freshQueue();
    const tenant = uniqueName('replay');
    const payouts = new Payouts();
    const byMessageId = new IdempotencyConfig({ eventKeyJmesPath: 'messageId' });
    byMessageId.registerLambdaContext(lambdaContext(900_000));
    const processRecord = makeIdempotent(
      shadowRecordHandler(async (record: SQSRecord) => payouts.pay(JSON.parse(record.body)), shadowOptions()),
      {
        persistenceStore: new DynamoDBPersistenceLayer({ tableName: idempotencyTable, awsSdkV3Client: raw }),
        config: byMessageId,
      },
    );
    const handler = (event: SQSEvent) =>
      processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS));
    // act: the same refund sent twice (one after the other), then refund r-9 again with another amount
    await send(queue.queueUrl, [{ tenant, refundId: 'r-8', amount: 5 }]);
    await handler(await receive(queue.queueUrl, 30));
    await send(queue.queueUrl, [{ tenant, refundId: 'r-8', amount: 5 }]);
    await handler(await receive(queue.queueUrl, 30));
    await send(queue.queueUrl, [{ tenant, refundId: 'r-9', amount: 5 }]);
    await handler(await receive(queue.queueUrl, 30));
    await send(queue.queueUrl, [{ tenant, refundId: 'r-9', amount: 7 }]);
    await handler(await receive(queue.queueUrl, 30));
    // assert
    const refund = (await report()).jobTypes.find((entry) => entry.jobType === 'refund');
    const named = (finding: ShadowFinding) =>
      (refund?.examples[finding] ?? []).filter((example) => example.tenantId === tenant).map((e) => e.operationId);
    expect(named(ShadowFinding.afterCompletion)).toEqual(['r-8']);
    expect(named(ShadowFinding.payloadConflict)).toEqual(['r-9']);
    expect(named(ShadowFinding.concurrent)).toEqual([]);
  });
});
