import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo, stallSpecs } from '../../../examples/demo/run-demo.js';
import { runStalledWorker } from '../../../examples/demo/stall.js';
import { createExampleJobs, examplesTableDefinition } from '../../../examples/jobs/index.js';
import { statementRecordKey } from '../../../examples/jobs/statement-publication.js';
import type { DemoEnvironment, DemoReport } from '../../../infra/local/demo-types.js';
import { QueuePollers } from '../../../infra/local/pollers.js';
import { createSqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import { requireNoTransactions, requireTransactions } from '../../support/capability.js';
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

describe('the example jobs under a stalled worker, on the test engines (the demo scenarios)', () => {
  let tables: TestTables;
  let client: DynamoDBDocumentClient;
  let sqs: SQSClient;
  let pollers: QueuePollers;
  let env: DemoEnvironment;
  const examples = uniqueName('local-examples');
  const jobs = () => new Map(createExampleJobs(examples).map((job) => [job.type, job]));
  const read = async (pk: string, sk: string) =>
    (await client.send(new GetCommand({ TableName: examples, Key: { pk, sk }, ConsistentRead: true }))).Item;

  beforeAll(async () => {
    tables = await createTestTables('local-demo');
    client = testDocumentClient();
    sqs = testSqsClient();
    await client.send(new CreateTableCommand(examplesTableDefinition(examples)));
    const { queueUrl, dlqUrl } = await createTestQueue(sqs, 'local-demo');
    const config = testHandlerConfig(tables, { queueUrl, dlqUrl });
    const handlers = [1, 2].map((index) =>
      createSqsWorkerHandler({
        jobs: createExampleJobs(examples),
        config,
        telemetry: countingTelemetry(),
        workerId: `test-worker-${index}`,
      }),
    );
    pollers = new QueuePollers({ sqs, queueUrl, handlers, idleMs: 50 });
    pollers.start();
    env = {
      dynamodbEndpoint: engineEndpoints().dynamo,
      client,
      sqs,
      queueUrl,
      tables: { jobs: tables.jobsTable, payloads: tables.payloadsTable, examples },
      engineName: engineEndpoints().engineName,
    };
  });
  afterAll(async () => {
    await pollers?.stop();
    await client?.send(new DeleteTableCommand({ TableName: examples }));
    await tables?.drop();
    sqs?.destroy();
  });

  it('refund settlement: the takeover reconciles instead of refunding again, and the stale confirm is rejected', async () => {
    // prepare
    const [refund] = stallSpecs('refund1', jobs());
    if (!refund) throw new Error('no refund scenario');

    // act
    const outcome = await runStalledWorker(env, refund.spec);

    // assert
    expect(outcome.second).toMatchObject({
      status: 'executed',
      fence: 2,
      result: { state: 'succeeded', reconciled: true },
    });
    expect(outcome.first).toMatchObject({
      status: 'executed',
      fence: 1,
      result: { state: 'ownership_lost', reason: 'fence.rejected' },
    });
    expect(outcome.item).toMatchObject({ state: 'succeeded', fence: 2, attempts: 2 });
    expect(outcome.staleWritesRejected).toBe(1);
    // the story tells one claim per worker, consistent with what each then did under its fence
    const said = outcome.timeline.events.map((event) => event.text);
    expect(said.join('\n')).not.toMatch(/did not claim/);
    expect(said).toContainEqual(expect.stringMatching(/^worker-A claimed .* with fence 1 \(attempt 1 of \d+\)$/));
    expect(said).toContainEqual(
      expect.stringMatching(/^worker-B claimed .* with fence 2 \(attempt 2 of \d+, taking over an expired lease\)$/),
    );
    expect(await refund.demoCase.inspect(env)).toEqual({
      sideEffects: 1,
      detail: 'refund row sent, last written under fence 2',
    });
  });

  it('statement publication: the stalled older claim never replaces what the newer one published', async () => {
    // prepare
    const [, statement] = stallSpecs('stmt1', jobs());
    if (!statement) throw new Error('no statement scenario');
    const base = statementRecordKey({ tenantId: 'bank-eu', operationId: 'statement-a43-2026-09-13-stmt1' });

    // act
    const outcome = await runStalledWorker(env, statement.spec);

    // assert
    expect(outcome.second).toMatchObject({ fence: 2, result: { state: 'succeeded' } });
    expect(outcome.first).toMatchObject({ fence: 1, result: { state: 'ownership_lost', reason: 'fence.rejected' } });
    expect(await read(base, 'pointer')).toMatchObject({ current: `${base}#object`, writer_epoch: 2 });
    // worker-A wrote the object under fence 1 before it stalled; worker-B's write under fence 2 replaced it
    expect(await read(`${base}#object`, 'object')).toMatchObject({ lines: 12, writer_epoch: 2 });
    expect(outcome.timeline.events.at(-1)?.text).toMatch(/^worker-A resumed; its pointer update .* REJECTED/);
  });

  let report: DemoReport | undefined;
  const demo = async () => {
    report ??= await runDemo(env, { runTag: 'all1', timeoutMs: 20_000 });
    return report;
  };

  it('inventory (class A) is skipped with the reason on an engine without transactions', async (context) => {
    requireNoTransactions(context);
    const result = await demo();
    expect(result.skipped).toEqual([
      { jobType: 'inventory-reservation', reason: expect.stringContaining(`which ${env.engineName} does not have`) },
    ]);
    expect(result.operations.map((operation) => operation.jobType)).not.toContain('inventory-reservation');
    expect(result.sideEffectsPerOperation).toBe(1);
  });

  it('inventory (class A) runs and decrements the stock once on an engine with transactions', async (context) => {
    requireTransactions(context);
    const result = await demo();
    expect(result.skipped).toEqual([]);
    expect(result.operations.find((operation) => operation.jobType === 'inventory-reservation')).toMatchObject({
      state: 'succeeded',
      sideEffects: 1,
      detail: 'stock 10 → 7',
    });
    expect(result.sideEffectsPerOperation).toBe(1);
  });
});
