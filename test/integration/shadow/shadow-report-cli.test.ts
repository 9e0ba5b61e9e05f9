import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { killAll, runCli } from '../../support/cli-runner.js';
import { createTestTables, engineEndpoints, type TestTables, testDocumentClient } from '../../support/engine.js';

/** `leasefence shadow report` against the test engine's tables, as a team runs it against its deployment. */
describe('leasefence shadow report', () => {
  const client = testDocumentClient();
  let tables: TestTables;
  beforeAll(async () => {
    tables = await createTestTables('shadow-cli');
  });
  afterAll(async () => {
    killAll();
    client.destroy();
    await tables.drop();
  });

  const cli = (extra: string[] = [], on: TestTables = tables) =>
    runCli(
      [
        'shadow',
        'report',
        '--dynamodb-endpoint',
        engineEndpoints().dynamo,
        '--jobs-table',
        on.jobsTable,
        '--payloads-table',
        on.payloadsTable,
        '--queue-url',
        'http://127.0.0.1:1/000000000000/none',
        '--deadline-shards',
        '8',
        ...extra,
      ],
      { timeoutMs: 30_000 },
    );

  /** Records one execution through the store's shadow door, started and ended at chosen times. */
  async function execution(
    operationId: string,
    at: number,
    endAt: number | undefined,
    payloadHash = 'h1',
    outcome: 'succeeded' | 'failed' = 'succeeded',
    on: TestTables = tables,
  ) {
    const store = new OperatorStore({ client, tableName: on.jobsTable });
    const identity = parseIdentity({ tenantId: 'acme', operationId });
    const common = { identity, jobType: 'refund', payloadHash, leaseMs: 100, retentionMs: 86_400_000 };
    const fence = await store.shadow.start({ ...common, startedAt: at });
    if (endAt !== undefined) await store.shadow.end(identity, fence, { endedAt: endAt, outcome });
  }

  it('no shadow rows: nothing recorded, exit 0', async () => {
    const run = await cli();
    expect(run.stdout).toMatch(/NO DOUBLE-RUNS RECORDED among 0 executions/);
    expect(run.code).toBe(0);
  });

  it('an execution that never ended, followed by another after its lease: NOT EVALUATED, exit 1', async () => {
    await execution('op-crash', 1_000, undefined);
    await execution('op-crash', 2_000, 2_010);
    const run = await cli();
    expect(run.stdout).toMatch(/^NOT EVALUATED/);
    expect(run.stdout).toMatch(/no recorded end/);
    expect(run.code).toBe(1);
  });

  it('overlapping executions: FINDINGS by job type, naming the operation, exit 1', async () => {
    await execution('op-double', 1_000, 1_500);
    await execution('op-double', 1_200, 1_300);
    const run = await cli();
    expect(run.stdout).toMatch(/^FINDINGS: 1 operations/);
    expect(run.stdout).toContain('refund: 1 ran concurrently');
    expect(run.stdout).toContain('leasefence show acme/op-double');
    expect(run.code).toBe(1);
    const json = JSON.parse((await cli(['--json'])).stdout);
    expect(json.jobTypes[0].counts.concurrent).toBe(1);
  });

  it('an operation whose execution list is full (100) and then ran twice unrecorded: NOT EVALUATED naming it, exit 1', async () => {
    const own = await createTestTables('shadow-cli-full');
    try {
      await fullListThenTwoRuns(own);
      await expectFullListNotEvaluated(own);
    } finally {
      await own.drop();
    }
  });

  /** 100 clean executions (each failed, none overlapping), then two runs whose starts the full list refuses. */
  async function fullListThenTwoRuns(on: TestTables) {
    for (let at = 10_000; at < 10_000 + 100 * 10; at += 10) await execution('op-full', at, at + 5, 'h1', 'failed', on);
    await expect(execution('op-full', 20_000, 20_005, 'h1', 'succeeded', on)).rejects.toThrow();
    await expect(execution('op-full', 20_010, 20_015, 'h1', 'succeeded', on)).rejects.toThrow();
  }

  async function expectFullListNotEvaluated(on: TestTables) {
    const run = await cli([], on);
    expect(run.stdout).not.toMatch(/NO DOUBLE-RUNS RECORDED/);
    expect(run.stdout).toMatch(/NOT EVALUATED: 1 operations reached the cap of 100 recorded executions/);
    expect(run.stdout).toContain('leasefence show acme/op-full');
    expect(run.stdout).toMatch(/^NOT EVALUATED/);
    expect(run.code).toBe(1);
    const json = JSON.parse((await cli(['--json'], on)).stdout);
    expect(json.verdict).toBe('not_evaluated');
    expect(json.notEvaluated.some((gap: string) => gap.includes('cap of 100'))).toBe(true);
    expect(json.jobTypes[0].listFull).toBe(1);
  }
});
