import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
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

  const cli = (extra: string[] = []) =>
    runCli(
      [
        'shadow',
        'report',
        '--dynamodb-endpoint',
        engineEndpoints().dynamo,
        '--jobs-table',
        tables.jobsTable,
        '--payloads-table',
        tables.payloadsTable,
        '--queue-url',
        'http://127.0.0.1:1/000000000000/none',
        '--deadline-shards',
        '8',
        ...extra,
      ],
      { timeoutMs: 30_000 },
    );

  /** Records one execution through the store's shadow door, started and ended at chosen times. */
  async function execution(operationId: string, at: number, endAt: number | undefined, payloadHash = 'h1') {
    const store = new WorkItemStore({ client, tableName: tables.jobsTable });
    const identity = parseIdentity({ tenantId: 'acme', operationId });
    const common = { identity, jobType: 'refund', payloadHash, leaseMs: 100, retentionMs: 86_400_000 };
    const fence = await store.shadow.start({ ...common, startedAt: at });
    if (endAt !== undefined) await store.shadow.end(identity, fence, { endedAt: endAt, outcome: 'succeeded' });
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
});
