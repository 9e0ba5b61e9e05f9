import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  checkArgs,
  openControls,
  runCheckStack,
  runCli,
  verdictsOf,
} from '../../infra/testing/deploy-lane/check-run.js';
import { systemClock } from '../../lib/clock.js';
import { sendJob } from '../../lib/messaging/producer.js';
import { PayloadStore } from '../../lib/store/index.js';
import { LANE_STACKS, laneEnvironment } from './lane-context.js';

const lane = inject('deployLane');
if ('skipped' in lane) console.log(`[deploy-lane] examples SKIPPED: ${lane.skipped}`);
const stack = 'stacks' in lane ? lane.stacks.examples : undefined;
const env = laneEnvironment(inject('deployLaneEndpoint'), inject('deployLaneCredentials'));
if (stack) Object.assign(process.env, env);
const worker = stack?.deployed.functions.worker.environment ?? {};
const examplesTable = String(worker.LEASEFENCE_EXAMPLES_TABLE);
const MODULE = 'test/deploy/lane-examples-module.ts';
/** Longest wait per message: the receipt crash's redelivery comes after the visibility timeout (91 s). */
const SETTLE = '150s';
const TENANT = 'lane';

/** Each job's state by `leasefence show --stack`, once none is queued or claimed any more (at most 60 tries). */
async function settledStates(subjects: readonly string[]): Promise<string[]> {
  let states: string[] = [];
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const shown = await Promise.all(
      subjects.map((subject) => runCli(['show', subject, '--stack', LANE_STACKS.examples, '--json'], env)),
    );
    states = shown.map((answer) =>
      String((JSON.parse(answer.stdout || '{}') as { item?: { state?: string } }).item?.state ?? 'absent'),
    );
    if (states.every((state) => !['absent', 'queued', 'claimed', 'running'].includes(state))) return states;
    await new Promise((done) => setTimeout(done, 2_000));
  }
  return states;
}

/**
 * The example jobs through the deployed stack (issue #41 item 3, "against that stack: the example jobs run"): sent
 * to its queue as a producer does, run by its worker under the Lambda emulator (the lane's poller following the
 * mapping), their records read back from the stack's examples table; then `check --stack` with the stack's faults
 * says GO for each of them. They run with the lane's lease (lane-examples-module.ts says why).
 */
describe.skipIf(!stack)('the example jobs in the stack deployed to moto', () => {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  afterAll(() => client.destroy());
  const read = async (pk: string, sk: string) =>
    (await client.send(new GetCommand({ TableName: examplesTable, Key: { pk, sk } }))).Item;

  it('each example job sent to the deployed queue succeeds once, with its records in the stack examples table', async () => {
    // Prepare: the stock the class A example reserves.
    const sqs = new SQSClient({});
    const payloads = new PayloadStore(client, String(worker.LEASEFENCE_PAYLOADS_TABLE), systemClock);
    await client.send(
      new PutCommand({
        TableName: examplesTable,
        Item: { pk: `inventory#${TENANT}#sku-lamp`, sk: 'stock', available: 10 },
      }),
    );
    const sent = [
      { jobType: 'refund-settlement', payload: { merchantId: 'm_4471', amount: 70.25, currency: 'EUR' } },
      { jobType: 'statement-publication', payload: { accountId: 'account-42', date: '2026-09-13', lines: 3 } },
      { jobType: 'inventory-reservation', payload: { sku: 'sku-lamp', quantity: 2 } },
    ];

    // Act
    for (const job of sent) {
      await sendJob(
        { sqs, queueUrl: String(worker.LEASEFENCE_QUEUE_URL), payloads },
        { tenantId: TENANT, operationId: `lane-${job.jobType}`, jobVersion: 1, ...job },
      );
    }
    sqs.destroy();
    const states = await settledStates(sent.map((job) => `${TENANT}/lane-${job.jobType}`));

    // Assert
    expect(states).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(await read(`refund#${TENANT}#lane-refund-settlement`, 'refund')).toMatchObject({
      status: 'sent',
      amount: 70.25,
    });
    const gateway = await client.send(new ScanCommand({ TableName: examplesTable }));
    const refunds = (gateway.Items ?? []).filter((item) => String(item.pk).startsWith('gateway#'));
    expect(refunds.map(({ amount, currency }) => ({ amount, currency }))).toEqual([{ amount: 70.25, currency: 'EUR' }]);
    const statement = `statement#${TENANT}#lane-statement-publication`;
    expect(await read(statement, 'pointer')).toMatchObject({ current: `${statement}#object`, accountId: 'account-42' });
    expect(await read(`${statement}#object`, 'object')).toMatchObject({ lines: 3 });
    expect(await read(`inventory#${TENANT}#sku-lamp`, 'stock')).toMatchObject({ available: 8 });
  });

  it('check --stack with faults says GO for every example job type (all nine controls, from the deployed worker)', async () => {
    // Act
    const run = await runCheckStack(checkArgs(LANE_STACKS.examples, MODULE, SETTLE), {
      ...env,
      LEASEFENCE_EXAMPLES_TABLE: examplesTable,
    });

    // Assert
    expect(verdictsOf(run), `${run.stderr}\n${openControls(run).join('\n')}`).toEqual({
      'refund-settlement': 'GO',
      'statement-publication': 'GO',
      'inventory-reservation': 'GO',
    });
    expect(run.exitCode).toBe(0);
    expect(run.report?.cleanup.rowsAfter).toBe(0);
  });
});
