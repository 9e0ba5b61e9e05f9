import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/document-client.js';
import { parseIdentity } from '../../../lib/identity.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { killAll, runCli, startMemoryStack } from '../../support/cli-runner.js';

type Stack = Awaited<ReturnType<typeof startMemoryStack>>;
const JOBS_MODULE = 'test/integration/local/fixtures/greeting-jobs.ts';

describe('leasefence start --jobs: the local stack runs a user’s own jobs module', () => {
  let stack: Stack;
  const cli = (...args: string[]) => runCli([...args, ...stack.at]);
  const enqueueGreeting = (operation: string, payload: string) =>
    cli('enqueue', '--type', 'greet', '--tenant', 'acme', '--operation', operation, '--payload', payload);

  beforeAll(async () => {
    stack = await startMemoryStack(['--jobs', JOBS_MODULE, '--sweep-interval', '60s']);
  });
  afterAll(async () => {
    await stack?.close();
    killAll();
  });

  it('creates the module’s tables, names its job types, and runs an enqueued job to its fenced record', async () => {
    // prepare
    const client = createDocumentClient({ endpoint: stack.state.endpoints.dynamodb });
    const store = new WorkItemStore({ client, tableName: stack.state.tables.jobs });
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'greet-1' });
    try {
      // act
      const sent = await enqueueGreeting('greet-1', '{"name":"Ada"}');
      let item = await store.get(identity);
      for (let tries = 0; tries < 200 && item?.state !== 'succeeded'; tries += 1) {
        await new Promise((wait) => setTimeout(wait, 100));
        item = await store.get(identity);
      }

      // assert
      expect(sent.code).toBe(0);
      expect(stack.process.output()).toMatch(/greet/);
      expect(item).toMatchObject({ state: 'succeeded', outcomeCode: 'greeted' });
      const record = await client.send(
        new GetCommand({ TableName: 'greetings', Key: { pk: 'acme#greet-1', sk: 'greeting' }, ConsistentRead: true }),
      );
      expect(record.Item).toMatchObject({ text: 'hello Ada', writer_epoch: item?.fence });
    } finally {
      client.destroy();
    }
  });

  it('prints a banner about the module’s jobs and tables only, with the console running', async () => {
    // act
    const banner = stack.process.output();

    // assert
    expect(banner).toMatch(/console +http:\/\/127\.0\.0\.1:\d+\/ +operator console/);
    expect(banner).toMatch(/worker +runs test\/integration\/local\/fixtures\/greeting-jobs\.ts \(greet\)/);
    expect(banner).toMatch(/tables +leasefence-jobs, leasefence-payloads, greetings \(created now\)/);
    expect(banner).toContain('none of these job types is class A');
    expect(banner).toMatch(/enqueue --type greet --tenant acme --operation try-1/);
    expect(banner).not.toMatch(/undefined|not started|leasefence-examples|inventory-reservation|statement-publication/);
    expect(banner).not.toMatch(/refund-settlement|leasefence -- demo|leasefence demo/);
  });

  it('checks a payload against the module’s schema before sending (exit 2, nothing sent)', async () => {
    const sent = await enqueueGreeting('greet-2', '{"name":""}');
    expect(sent.code).toBe(2);
    expect(sent.stderr).toContain("does not match greet's schema");
  });

  it('refuses a module that exports no job definitions, naming the export it expected (exit 1)', async () => {
    const started = await runCli([
      'start',
      '--memory',
      '--jobs',
      'test/integration/local/fixtures/../../../../package.json',
    ]);
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/must export `jobs`/);
  });
});

describe('leasefence start --verbose: a developer sees the error text of their own failing job', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startMemoryStack(['--jobs', 'test/integration/local/fixtures/buggy-jobs.ts', '--verbose']);
  });
  afterAll(async () => {
    await stack?.close();
    killAll();
  });

  it('prints the code and message the failed attempt recorded, under the hashed identity', async () => {
    // act
    const sent = await runCli([
      ...['enqueue', '--type', 'post-ledger', '--tenant', 'acme', '--operation', 'post-1'],
      ...['--payload', '{"ledger":"L-2026-12"}', ...stack.at],
    ]);
    const line = await stack.process.waitFor(/\[worker\] info job error .*/, 60_000);

    // assert: the job's own words reach the developer; the identity stays hashed as in every log line
    expect(sent.code).toBe(0);
    expect(line[0]).toContain('ledger_missing: ledger L-2026-12 is not open yet');
    expect(line[0]).not.toContain('post-1');
  });
});
