import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningLocalStack } from '../../../infra/local/stack.js';
import { ManualClock } from '../../../lib/clock.js';
import { type JobIdentity, parseIdentity } from '../../../lib/identity.js';
import { deadlineShardFor, deadlineShardName } from '../../../lib/store/table.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { killAll, runCli, startCommand } from '../../support/cli-runner.js';
import { type CloudFormationServer, startCloudFormationServer } from '../../support/cloudformation-server.js';
import {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testDocumentClient,
  testSqsClient,
} from '../../support/engine.js';
import { putWorkItem } from '../../support/factories.js';
import { drainQueue } from '../../support/queue-reader.js';
import { startStateFileStack, stopStateFileStack, type TempLocalDir } from '../../support/quiet-stack.js';

/** The shard count a tool that assumed the default would use. */
const ASSUMED_SHARDS = 32;

/** `count` identities of `tenant` whose shard under `shards` is (inside) or is not (outside) among the first `limit`. */
function identitiesWhere(tenant: string, shards: number, limit: number, inside: boolean, count: number): JobIdentity[] {
  const names = new Set(Array.from({ length: limit }, (_, index) => deadlineShardName(index)));
  const found: JobIdentity[] = [];
  for (let index = 0; found.length < count && index < 10_000; index += 1) {
    const identity = parseIdentity({ tenantId: tenant, operationId: `op-${index}` });
    if (names.has(deadlineShardFor(identity, shards)) === inside) found.push(identity);
  }
  return found;
}

/**
 * The CLI (and with it the console, which opens the same target) reads the deployment's deadline shard count
 * from the deployment: the local stack's state file, the stack's DeadlineShards output, or --deadline-shards.
 * A tool that assumed 32 would file a retried row where an 8-shard sweeper never looks, and would miss rows
 * in shards 32..63 of a 64-shard table.
 */
describe('deployment settings come from the deployment', () => {
  describe('an 8-shard local stack (the state file carries the count)', () => {
    let stack: RunningLocalStack;
    let local: TempLocalDir;

    beforeAll(async () => {
      // No pollers and no sweeps of its own: the wake-ups are lost, and the test runs the stack's sweeper once.
      ({ stack, local } = await startStateFileStack({ deadlineShards: 8, pollers: 0 }));
    });
    afterAll(async () => {
      await stopStateFileStack(stack, local);
      killAll();
    });

    it('retry with lost wake-ups: the deployment’s sweeper finds every retried row and wakes it', async () => {
      // prepare: six failed rows; four of them would be filed in shards 8..31 under an assumed 32
      const identities = [
        ...identitiesWhere('shard8', ASSUMED_SHARDS, 8, false, 4),
        ...identitiesWhere('shard8', ASSUMED_SHARDS, 8, true, 2),
      ];
      expect(identities).toHaveLength(6);
      for (const identity of identities) {
        await putWorkItem(stack.client, stack.state.tables.jobs, {
          identity,
          state: 'failed_terminal',
          now: Date.now() - 60_000,
          deadlineShards: 8,
        });
      }
      expect(stack.state.settings.deadlineShards).toBe(8);

      // act: the operator retries each; every wake-up is lost; the stack's sweeper (8 shards) runs once
      const runs = [];
      for (const identity of identities) {
        const argv = ['retry', identity.tenantId, identity.operationId, '--reason', 'template fixed', '--json'];
        runs.push(await runCli([...argv, '--local-dir', local.dir], { timeoutMs: 60_000 }));
      }
      const lost = await drainQueue(stack.sqs, stack.state.queues.jobs);
      const summary = await sweep({
        store: stack.store,
        sqs: stack.sqs,
        queueUrl: stack.state.queues.jobs,
        clock: new ManualClock(Date.now() + 60_000),
        dueGraceMs: 0,
      });
      const woken = await drainQueue(stack.sqs, stack.state.queues.jobs);

      // assert
      expect(runs.map((run) => [run.code, run.stderr])).toEqual(identities.map(() => [0, '']));
      expect(lost).toHaveLength(6);
      expect(summary.resignalled).toBe(6);
      const wokenIds = woken.map((message) => (JSON.parse(message.body) as JobIdentity).operationId).sort();
      expect(wokenIds).toEqual(identities.map((identity) => identity.operationId).sort());
    });
  });

  describe('a 64-shard deployment on AWS (--stack outputs, or --deadline-shards)', () => {
    let tables: TestTables;
    let client: DynamoDBDocumentClient;
    let sqs: SQSClient;
    let queueUrl: string;
    let cloudFormation: CloudFormationServer;
    const high = identitiesWhere('shard64', 64, ASSUMED_SHARDS, false, 3);
    const low = identitiesWhere('shard64', 64, ASSUMED_SHARDS, true, 2);
    const engines = () => ['--dynamodb-endpoint', engineEndpoints().dynamo, '--sqs-endpoint', engineEndpoints().sqs];
    /** The CLI's AWS SDK sends DescribeStacks to the loopback endpoint (a CLI process takes seconds on 2 cores). */
    const cliOptions = () => ({
      env: {
        AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_REGION: 'us-east-1',
      },
      timeoutMs: 60_000,
    });

    beforeAll(async () => {
      tables = await createTestTables('shards64');
      client = testDocumentClient();
      sqs = testSqsClient();
      ({ queueUrl } = await createTestQueue(sqs, 'shards64'));
      for (const identity of [...high, ...low]) {
        await putWorkItem(client, tables.jobsTable, { identity, state: 'queued', now: Date.now(), deadlineShards: 64 });
      }
      const outputs = { JobsTableName: tables.jobsTable, PayloadsTableName: tables.payloadsTable, QueueUrl: queueUrl };
      cloudFormation = await startCloudFormationServer([
        { name: 'Jobs64', outputs: { ...outputs, DeadlineShards: '64' } },
        { name: 'OldJobs', outputs },
      ]);
    });
    afterAll(async () => {
      await cloudFormation?.stop();
      await tables?.drop();
      client?.destroy();
      sqs?.destroy();
      killAll();
    });

    it('--stack: ls and counts see every queued row, in every one of the 64 shards', async () => {
      expect([high.length, low.length]).toEqual([3, 2]); // three rows in shards 32..63, two below
      const [listed, counted] = await Promise.all([
        runCli(['ls', '--state', 'queued', '--all', '--json', '--stack', 'Jobs64', ...engines()], cliOptions()),
        runCli(['counts', '--json', '--stack', 'Jobs64', ...engines()], cliOptions()),
      ]);

      expect([listed.code, listed.stderr]).toEqual([0, '']);
      const items = (JSON.parse(listed.stdout) as { items: JobIdentity[] }).items;
      expect(items.map((item) => item.operationId).sort()).toEqual(
        [...high, ...low].map((identity) => identity.operationId).sort(),
      );
      expect([counted.code, counted.stderr]).toEqual([0, '']);
      const states = (JSON.parse(counted.stdout) as { states: Array<{ state: string; count: number }> }).states;
      expect(states.find((entry) => entry.state === 'queued')).toMatchObject({ count: 5, complete: true });
      expect(cloudFormation.described).toContain('Jobs64');
    });

    it('console --stack: its counts see every queued row too (the console opens the same target)', async () => {
      const running = startCommand(['console', '--port', '0', '--stack', 'Jobs64', ...engines()], cliOptions().env);
      try {
        const [, url] = await running.waitFor(/(http:\/\/127\.0\.0\.1:[0-9]+)\//, 60_000);
        const html = await (await fetch(`${url}/`)).text();
        const token = /name="leasefence-token" content="([^"]+)"/.exec(html)?.[1] ?? '';
        const answer = await fetch(`${url}/api/counts`, { headers: { 'x-leasefence-console-token': token } });
        const body = (await answer.json()) as { states: Array<{ state: string; count: number }> };

        expect(answer.status).toBe(200);
        expect(body.states.find((entry) => entry.state === 'queued')).toMatchObject({ count: 5, complete: true });
      } finally {
        await running.stop('SIGINT');
      }
    });

    it('--deadline-shards with explicit names: the same answers', async () => {
      const run = await runCli(
        [
          ...['counts', '--json', '--jobs-table', tables.jobsTable, '--payloads-table', tables.payloadsTable],
          ...['--queue-url', queueUrl, '--deadline-shards', '64', ...engines()],
        ],
        { timeoutMs: 60_000 },
      );

      expect([run.code, run.stderr]).toEqual([0, '']);
      const states = (JSON.parse(run.stdout) as { states: Array<{ state: string; count: number }> }).states;
      expect(states.find((entry) => entry.state === 'queued')).toMatchObject({ count: 5 });
    });

    it('a stack without the DeadlineShards output is refused, never read with an assumed count', async () => {
      const run = await runCli(['counts', '--json', '--stack', 'OldJobs', ...engines()], cliOptions());

      expect(run.code).toBe(1);
      expect(run.stderr).toContain('DeadlineShards');
      expect(run.stdout).toBe('');
    });

    it('retry through --stack files the row in its shard of the 64, where the deployment’s sweeper reads it', async () => {
      const [identity] = identitiesWhere('retry64', 64, ASSUMED_SHARDS, false, 1) as [JobIdentity];
      await putWorkItem(client, tables.jobsTable, {
        identity,
        state: 'failed_terminal',
        now: Date.now() - 60_000,
        deadlineShards: 64,
      });

      const run = await runCli(
        ['retry', identity.tenantId, identity.operationId, '--reason', 'fixed', '--stack', 'Jobs64', ...engines()],
        cliOptions(),
      );
      await drainQueue(sqs, queueUrl);
      const store = new WorkItemStore({ client, tableName: tables.jobsTable, deadlineShards: 64 });
      const item = await store.get(parseIdentity(identity));

      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(item).toMatchObject({ state: 'queued', deadlineShard: deadlineShardFor(identity, 64) });
    });
  });
});
