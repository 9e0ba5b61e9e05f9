import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runInterruptCleanups } from '../../../infra/cli/interrupt-cleanup.js';
import { main } from '../../../infra/cli/main.js';
import { loadJobsModule } from '../../../infra/local/jobs-module.js';
import type { RunningLocalStack } from '../../../infra/local/stack.js';
import { type CloudFormationServer, startCloudFormationServer } from '../../support/cloudformation-server.js';
import { startStateFileStack, stopStateFileStack, type TempLocalDir } from '../../support/quiet-stack.js';
import { captureIo } from '../../unit/cli/io.js';
import type { StackCheckReport } from './stack-check-report.js';

/** The example jobs plus a job type behind an approval gate. */
const FIXTURE = 'test/integration/cli/fixtures/stack-check-module.ts';

/**
 * `check --stack local` against a local stack started in this process the way `npm start` runs it (its state file
 * in a temp folder, its own dynalite and fauxqs, its own pollers): the check only sends messages and reads tables.
 */
describe('leasefence check --stack: the go/no-go scenarios through a running stack', () => {
  let stack: RunningLocalStack;
  let local: TempLocalDir;
  const check = async (...args: string[]) => {
    const io = captureIo();
    const code = await main(['check', ...args], io);
    return { code, out: io.stdout(), err: io.stderr() };
  };
  const atLocal = () => ['--stack', 'local', '--local-dir', local.dir, '--settle-timeout', '60s'];
  /** Every row of both tables, and how many belong to the check (its tenants, or a quarantine record). */
  const rows = async () => {
    const scan = async (table: string) =>
      (await stack.client.send(new ScanCommand({ TableName: table, ConsistentRead: true }))).Items ?? [];
    const all = [...(await scan(stack.state.tables.jobs)), ...(await scan(stack.state.tables.payloads))];
    const mine = all.filter(
      (row) => String(row.pk).startsWith('lfcheck-') || String(row.pk).startsWith('#quarantine#'),
    );
    return { all: all.length, mine: mine.length };
  };

  beforeAll(async () => {
    ({ stack, local } = await startStateFileStack({
      pollers: 2,
      jobs: await loadJobsModule(FIXTURE),
    }));
  });
  afterAll(async () => {
    await stopStateFileStack(stack, local);
  });

  it('PASS (never GO) for the job types that earn it on controls 1, 2 and 7; the fault controls and class A on dynalite NOT EVALUATED; every row it made deleted', async () => {
    // Prepare
    const before = await rows();

    // Act
    const { code, out } = await check(...atLocal(), '--json');

    // Assert
    const after = await rows();
    const parsed = JSON.parse(out) as {
      passed: boolean;
      jobTypes: StackCheckReport[];
      cleanup: Record<string, number>;
    };
    const verdicts = Object.fromEntries(parsed.jobTypes.map((report) => [report.jobType, report.verdict]));
    expect(verdicts).toEqual({
      'refund-settlement': 'PASS',
      'statement-publication': 'PASS',
      'inventory-reservation': 'NOT EVALUATED',
      'gated-payout': 'PASS',
    });
    expect(parsed.passed).toBe(false);
    expect(JSON.stringify(parsed.jobTypes.map((report) => report.verdict))).not.toContain('"GO"');
    expect(code).toBe(1);
    for (const report of parsed.jobTypes.filter((job) => job.verdict === 'PASS')) {
      expect(
        report.controls.filter((control) => control.claimed).map((control) => [control.id, control.status]),
      ).toEqual([
        [1, 'PASS'],
        [2, 'PASS'],
        [7, 'PASS'],
      ]);
      for (const control of report.controls.filter((entry) => !entry.claimed)) {
        expect(control.status).toBe('NOT EVALUATED');
        expect(control.evidence).toMatch(/^not observable through a running stack: needs /);
      }
    }
    const gated = parsed.jobTypes.find((report) => report.jobType === 'gated-payout');
    expect(gated?.scenarios.filter((scenario) => scenario.id.startsWith('approval-')).map((s) => s.status)).toEqual([
      'passed',
      'passed',
      'passed',
    ]);
    const classA = parsed.jobTypes.find((report) => report.jobType === 'inventory-reservation');
    expect(classA?.scenarios.find((scenario) => scenario.id === 'replay')?.detail).toContain(
      'lacks TransactWriteItems',
    );
    expect(classA?.controls.find((control) => control.id === 1)?.status).toBe('NOT EVALUATED');
    expect(parsed.cleanup.rowsBefore).toBeGreaterThan(0);
    expect(parsed.cleanup).toMatchObject({ deleted: parsed.cleanup.rowsBefore, rowsAfter: 0, leftClaimed: 0 });
    expect(before.mine).toBe(0);
    expect(after).toEqual(before);
  });

  it('interrupted: nothing more is sent, the rows made so far are deleted, and nothing says PASS or GO', async () => {
    // Prepare: a check under way, some of its rows in the stack
    const running = check(...atLocal());
    await vi.waitUntil(async () => (await rows()).mine > 0, { timeout: 60_000, interval: 50 });

    // Act: what main's SIGINT handler runs before it exits
    await runInterruptCleanups();
    const left = await rows();
    const { code, out } = await running;

    // Assert
    expect(left.mine).toBe(0);
    expect((await rows()).mine).toBe(0);
    expect(code).toBe(1);
    expect(out).toContain('interrupted: NOT EVALUATED, no verdict');
    expect(out).toMatch(/cleanup: \d+ row\(s\) the check made .*, 0 left/);
    expect(out).not.toMatch(/▶ (GO|PASS)|all (GO|PASS)/);
  });

  describe('a deployed stack (resolved through a loopback CloudFormation endpoint; nothing reaches AWS)', () => {
    let cloudFormation: CloudFormationServer;
    const outputs = (environment?: string) => ({
      JobsTableName: 'jobs',
      PayloadsTableName: 'payloads',
      QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/jobs',
      DeadlineShards: '32',
      ...(environment ? { Environment: environment } : {}),
    });

    beforeAll(async () => {
      cloudFormation = await startCloudFormationServer([
        { name: 'JobsProd', outputs: outputs('production') },
        { name: 'JobsUnmarked', outputs: outputs() },
      ]);
    });
    afterEach(() => vi.unstubAllEnvs());
    afterAll(async () => cloudFormation?.stop());
    const stubAws = () => {
      vi.stubEnv('AWS_ENDPOINT_URL_CLOUDFORMATION', cloudFormation.url);
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    };

    it('refuses a stack marked production, or not marked at all, with a usage error before any client is opened', async () => {
      stubAws();
      const production = await check('--stack', 'JobsProd', '--region', 'us-east-1');
      const unmarked = await check('--stack', 'JobsUnmarked', '--region', 'us-east-1', '--json');
      expect(production.code).toBe(2);
      expect(production.err).toContain('stack JobsProd is marked production');
      expect(production.err).toContain('nothing was sent. Add --allow-production');
      expect(unmarked.code).toBe(2);
      expect(unmarked.err).toContain('stack JobsUnmarked is not marked as a test or staging environment');
      expect(cloudFormation.described).toEqual(['JobsProd', 'JobsUnmarked']);
    });

    it('a stack CloudFormation does not know is a resolution error (exit 1), even with --allow-production', async () => {
      stubAws();
      const missing = await check('--stack', 'NoSuchStack', '--region', 'us-east-1', '--allow-production');
      expect(missing.code).toBe(1);
      expect(missing.err).toMatch(/NoSuchStack/);
    });
  });

  it.each([
    [['--allow-production'], '--allow-production: only with --stack'],
    [
      ['--stack', 'local', '--dynamodb-endpoint', 'http://127.0.0.1:1'],
      '--dynamodb-endpoint: the stack brings its own engines',
    ],
    [['--stack', 'local', '--inventory'], '--inventory: runs nothing'],
    [['--stack', 'local', '--region', 'eu-west-1'], '--region: only with a deployed stack'],
    [['--stack', 'Jobs', '--local-dir', '/tmp'], '--local-dir: only with --stack local'],
    [['--stack', 'not a name'], '--stack: must be a CloudFormation stack name'],
  ])('refuses %j with a usage error', async (args, message) => {
    const { code, err } = await check(...args);
    expect(code).toBe(2);
    expect(err).toContain(message);
  });

  it('--stack local with no local stack running, or with another jobs module than the stack runs, sends nothing', async () => {
    const none = await check('--stack', 'local', '--local-dir', `${local.dir}/nothing-here`);
    const other = await check(...atLocal(), '--jobs', 'test/integration/cli/fixtures/good-module.ts');
    expect(none.code).toBe(1);
    expect(none.err).toContain('--stack local: no local stack is running');
    expect(other.code).toBe(2);
    expect(other.err).toContain('--jobs: the local stack runs');
  });

  it('--help names the stack flags and the refusal', async () => {
    const help = await check('--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('--stack <local|name>');
    expect(help.out).toContain('--allow-production');
  });
});
