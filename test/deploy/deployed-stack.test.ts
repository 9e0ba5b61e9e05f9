import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkArgs, runCheckStack, runCli } from '../../infra/testing/deploy-lane/check-run.js';
import { type EmulatedStack, startEmulatedStack } from '../../infra/testing/deploy-lane/emulated-stack.js';
import { deployLane, incompleteResources, type Lane } from '../../infra/testing/deploy-lane/lane.js';
import { type DeployedStack, handOverMapping, readDeployedStack } from '../../infra/testing/deploy-lane/read-back.js';
import { systemClock } from '../../lib/clock.js';
import { sendJob } from '../../lib/messaging/producer.js';
import { PayloadStore } from '../../lib/store/index.js';
import { ledgerTable } from '../integration/cli/fixtures/cases/ledger.js';
import { functionUrlEvent } from '../support/function-url-event.js';

const endpoint = process.env.LEASEFENCE_DEPLOY_LANE_ENDPOINT;
const rieBin = process.env.LEASEFENCE_RIE_BIN;
const ricDir = process.env.LEASEFENCE_RIC_DIR;
const missing = !endpoint || !rieBin || !ricDir;
if (missing) {
  console.log(
    '[deploy-lane] SKIPPED: LEASEFENCE_DEPLOY_LANE_ENDPOINT, LEASEFENCE_RIE_BIN and LEASEFENCE_RIC_DIR are set by .ci/deploy-lane (moto, the emulator, the runtime client)',
  );
}

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const STACK = 'LeasefenceLane';
const FAULT_MODULE = 'test/integration/cli/fixtures/fault-check-module.ts';
/** Longest wait per message: the redelivery after a crash comes after the visibility timeout (91 s) and the lease. */
const SETTLE = '150s';
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' };

/** Each job's state by `leasefence show --stack`, once none is queued or claimed any more (at most 60 tries). */
async function settledStates(subjects: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  let states: string[] = [];
  for (let attempt = 0; attempt < 60; attempt += 1) {
    states = [];
    for (const subject of subjects) {
      const shown = await runCli(['show', subject, '--stack', STACK, '--json'], env);
      states.push(String((JSON.parse(shown.stdout || '{}') as { item?: { state?: string } }).item?.state ?? 'absent'));
    }
    if (states.every((state) => !['absent', 'queued', 'claimed', 'running'].includes(state))) return states;
    await new Promise((done) => setTimeout(done, 2_000));
  }
  return states;
}

/**
 * The deployment lane (issue #41 item 3): the project's CDK app bootstrapped and deployed with the aws-cdk CLI to
 * moto's server, read back through the Lambda, EventBridge and Secrets Manager APIs, each function's deployed code
 * run under AWS's Lambda Runtime Interface Emulator with aws-lambda-ric (the worker fed by a poller following its
 * event source mapping), then `leasefence check --stack` with the stack's fault injection against it.
 */
describe.skipIf(missing)('the project stack deployed to moto and run under the Lambda emulator', () => {
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  let dir: string;
  let lane: Lane;
  let deployed: DeployedStack;
  let template: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  let running: EmulatedStack | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasefence-deploy-lane-'));
    const env = {
      ...process.env,
      ...CREDENTIALS,
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_ENDPOINT_URL: endpoint,
    };
    Object.assign(process.env, { ...CREDENTIALS, AWS_REGION: REGION, AWS_ENDPOINT_URL: endpoint });
    lane = {
      kind: 'moto',
      stack: {
        stackName: STACK,
        account: ACCOUNT,
        region: REGION,
        workerEntry: 'test/deploy/lane-worker.ts',
        directDeploy: true,
        // The queue's visibility timeout follows (6 × 15 s + 1 s): the crash scenarios wait it out for the redelivery.
        workerTimeoutSeconds: 15,
      },
      env,
      assembly: join(dir, 'assembly'),
    };
    await deployLane(lane, console.log);
    template = JSON.parse(await readFile(join(lane.assembly, `${STACK}.template.json`), 'utf8'));
    deployed = await readDeployedStack(STACK);
    await handOverMapping(deployed.mapping);
    // The fault module's own table, as `leasefence start` creates a module's tables (not part of the stack).
    const dynamodb = new DynamoDBClient({});
    await dynamodb.send(new CreateTableCommand(ledgerTable));
    dynamodb.destroy();
    running = await startEmulatedStack(deployed, {
      tools: { rieBin: String(rieBin), ricDir: String(ricDir), nodeBin: process.execPath },
      aws: { region: REGION, endpoint: String(endpoint), accessKeyId: 'testing', secretAccessKey: 'testing' },
      account: ACCOUNT,
      dir: join(dir, 'functions'),
      log,
    });
  });

  afterAll(async () => {
    await running?.stop();
    // The functions' own output (the emulator's and the runtime client's lines), kept for a failed run's diagnosis.
    const keep = process.env.LEASEFENCE_DEPLOY_LANE_LOG;
    if (keep) await writeFile(keep, `${lines.join('\n')}\n`);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('every resource of the deployed stack is CREATE_COMPLETE (the CLI can print success over a failed one)', async () => {
    // Act
    const incomplete = await incompleteResources(STACK);

    // Assert
    expect(incomplete).toEqual([]);
  });

  it('the Lambda API describes the functions, mapping and schedule the template asks for', () => {
    // Prepare
    const resources = Object.values(template.Resources);
    const mapping = resources.find((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping')?.Properties;
    const rule = resources.find((resource) => resource.Type === 'AWS::Events::Rule')?.Properties;
    const declared = resources.filter((resource) => resource.Type === 'AWS::Lambda::Function').map((r) => r.Properties);

    // Assert
    for (const fn of Object.values(deployed.functions)) {
      const source = declared.find((properties) => String(properties.Description).startsWith(`leasefence ${fn.role}:`));
      expect(fn.handler).toBe(source?.Handler);
      expect(fn.runtime).toBe(source?.Runtime);
      expect(fn.timeoutSeconds).toBe(source?.Timeout);
      expect(fn.reservedConcurrency).toBe(source?.ReservedConcurrentExecutions);
      expect(fn.executionRole).toMatch(/^arn:aws:iam::123456789012:role\//);
      expect(Object.keys(fn.environment).sort()).toEqual(
        Object.keys((source?.Environment as { Variables: object } | undefined)?.Variables ?? {}).sort(),
      );
    }
    expect(deployed.functions.worker.environment.LEASEFENCE_FAULT_PLAN_SECRET_ARN).toMatch(/^arn:aws:secretsmanager:/);
    expect(deployed.functions.sweeper.environment.LEASEFENCE_FAULT_PLAN_SECRET_ARN).toBeUndefined();
    expect(deployed.mapping).toEqual({
      uuid: expect.any(String),
      queueArn: expect.stringContaining(':sqs:'),
      batchSize: mapping?.BatchSize,
      windowSeconds: mapping?.MaximumBatchingWindowInSeconds,
      maxConcurrency: (mapping?.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency,
      reportBatchItemFailures: true,
    });
    expect(deployed.schedule).toBe(rule?.ScheduleExpression);
    expect(deployed.identifierKeyLength).toBe(64);
    // moto skips AWS::Lambda::Url (a blank row, the stack still complete): no URL to read back here.
    expect(deployed.adminUrl).toBeUndefined();
  });

  it('the example jobs sent to the deployed queue run in the emulated worker: each work item succeeded', async () => {
    // Prepare: the stock the class A example reserves, in the stack's own examples table.
    const env = deployed.functions.worker.environment;
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    const sqs = new SQSClient({});
    const payloads = new PayloadStore(client, String(env.LEASEFENCE_PAYLOADS_TABLE), systemClock);
    const examples = String(env.LEASEFENCE_EXAMPLES_TABLE);
    await client.send(
      new PutCommand({ TableName: examples, Item: { pk: 'inventory#lane#sku-lamp', sk: 'stock', available: 10 } }),
    );
    const sent = [
      { jobType: 'refund-settlement', payload: { merchantId: 'm_4471', amount: 70.25, currency: 'EUR' } },
      { jobType: 'statement-publication', payload: { accountId: 'account-42', date: '2026-09-13', lines: 3 } },
      { jobType: 'inventory-reservation', payload: { sku: 'sku-lamp', quantity: 2 } },
    ];

    // Act
    for (const job of sent) {
      await sendJob(
        { sqs, queueUrl: String(env.LEASEFENCE_QUEUE_URL), payloads },
        { tenantId: 'lane', operationId: `lane-${job.jobType}`, jobVersion: 1, ...job },
      );
    }
    const states = await settledStates(
      sent.map((job) => `lane/lane-${job.jobType}`),
      lane.env,
    );

    // Assert
    expect(states).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(running?.poller.counts.invocations).toBeGreaterThan(0);
    client.destroy();
    sqs.destroy();
  });

  it('check --stack with faults: GO for the fenced job, NO-GO for the job with an unfenced write', async () => {
    // Act
    const run = await runCheckStack(checkArgs(STACK, FAULT_MODULE, SETTLE), lane.env);

    // Assert
    const verdicts = Object.fromEntries((run.report?.jobTypes ?? []).map((type) => [type.jobType, type.verdict]));
    const open = (run.report?.jobTypes ?? []).flatMap((type) =>
      type.controls
        .filter((control) => control.status !== 'PASS')
        .map((control) => `${type.jobType} ${control.id} ${control.status}: ${control.evidence}`),
    );
    expect(verdicts, `${run.stderr}\n${open.join('\n')}`).toEqual({
      'fenced-credit': 'GO',
      'unfenced-credit': 'NO-GO',
    });
    const unfenced = run.report?.jobTypes.find((type) => type.jobType === 'unfenced-credit');
    expect(unfenced?.controls.find((control) => control.id === 4)?.status).toBe('FAIL');
    expect(run.exitCode).toBe(1);
    expect(run.report?.cleanup.rowsAfter).toBe(0);
  });

  it('the admin function answers a Function URL request under the emulator (IAM auth is not emulated: the event carries it)', async () => {
    // Act
    const result = await running?.admin.invoke(functionUrlEvent({ method: 'GET', path: '/health' }));

    // Assert
    expect(result?.functionError).toBe(false);
    const response =
      result && !result.functionError ? (result.response as { statusCode: number; body: string }) : undefined;
    expect(response?.statusCode).toBe(200);
    expect(JSON.parse(String(response?.body)).status).toBe('ok');
  });
});
