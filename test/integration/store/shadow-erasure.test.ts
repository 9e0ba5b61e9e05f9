import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { parseIdentity } from '../../../lib/identity.js';
import { buildShadowReport } from '../../../lib/shadow/report.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import type { ErasureProgress } from '../../../lib/store/payloads/payload-erasure.js';
import { shadowKey } from '../../../lib/store/table.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';

const HASH = 'a'.repeat(64);

describe("erasure of a tenant's shadow rows", () => {
  let tables: TestTables;
  const client = testDocumentClient();
  const clock = new ManualClock(1_800_000_000_000);
  let store: OperatorStore;
  beforeAll(async () => {
    tables = await createTestTables('shadow-erase');
    store = new OperatorStore({ client, tableName: tables.jobsTable, clock });
  });
  afterAll(async () => {
    await tables.drop();
    client.destroy();
  });

  /** One execution the existing consumer ran, start and end, as the shadow wrapper records it. */
  async function ran(tenantId: string, operationId: string, startedAt: number): Promise<number> {
    const identity = parseIdentity({ tenantId, operationId });
    const fence = await store.shadow.start({
      identity,
      jobType: 'refund',
      payloadHash: HASH,
      startedAt,
      leaseMs: 1_000,
      retentionMs: 86_400_000,
    });
    await store.shadow.end(identity, fence, { endedAt: startedAt + 10, outcome: 'succeeded' });
    return fence;
  }

  const erase = (tenantId: string, max = 1_000) => {
    const progress: ErasureProgress = { deleted: 0, cleared: 0, shadowCleared: 0 };
    return store.erasure
      .eraseTenantData(tables.payloadsTable, { tenantId }, { max, progress, clock })
      .then((complete) => ({ complete, progress }));
  };

  it('turns the erased tenant’s executions into tombstones, keeps the fences, and the report says NOT EVALUATED for them', async () => {
    // prepare: a double-run for the erased tenant, and one for a tenant that stays
    await ran('tenant-gone', 'refund-1', 1_000);
    await ran('tenant-gone', 'refund-1', 5_000);
    await ran('tenant-gone', 'refund-2', 1_000);
    await ran('tenant-stays', 'refund-1', 1_000);
    await ran('tenant-stays', 'refund-1', 5_000);
    expect(buildShadowReport(await store.shadow.readAll()).doubleRuns).toBe(2);

    // act
    const first = await erase('tenant-gone');
    const again = await erase('tenant-gone');

    // assert: both rows of the tenant erased once; a repeat writes nothing
    expect(first).toEqual({ complete: true, progress: { deleted: 0, cleared: 0, shadowCleared: 2 } });
    expect(again.progress.shadowCleared).toBe(0);
    const key = shadowKey(parseIdentity({ tenantId: 'tenant-gone', operationId: 'refund-1' }));
    const row = (await client.send(new GetCommand({ TableName: tables.jobsTable, Key: key }))).Item;
    expect(row).toMatchObject({
      fence: 2,
      x: [
        { s: 0, l: 0, h: 'erased' },
        { s: 0, l: 0, h: 'erased' },
      ],
    });
    expect(JSON.stringify(row)).not.toContain(HASH);
    const report = buildShadowReport(await store.shadow.readAll());
    expect(report.doubleRuns).toBe(1);
    expect(report.jobTypes[0]?.examples.ran_twice).toEqual([{ tenantId: 'tenant-stays', operationId: 'refund-1' }]);
    expect(report.verdict).toBe('findings');
    expect(report.notEvaluated).toEqual([
      "3 executions were erased with their tenant's data (erase-payloads): not evaluated",
    ]);
  });

  it('a shadow start after the erasure gets the next fence and its end lands on its own execution', async () => {
    const fence = await ran('tenant-gone', 'refund-2', 9_000);
    expect(fence).toBe(2);
    const key = shadowKey(parseIdentity({ tenantId: 'tenant-gone', operationId: 'refund-2' }));
    const row = (await client.send(new GetCommand({ TableName: tables.jobsTable, Key: key }))).Item;
    expect(row?.x).toEqual([
      { s: 0, l: 0, h: 'erased' },
      { s: 9_000, l: 10_000, h: HASH, e: 9_010, o: 'succeeded' },
    ]);
    // and the next erasure takes it too
    expect((await erase('tenant-gone')).progress.shadowCleared).toBe(1);
  });

  it('stops at max writes and says it is not complete', async () => {
    await ran('tenant-many', 'a', 1_000);
    await ran('tenant-many', 'b', 1_000);
    await ran('tenant-many', 'c', 1_000);
    const bounded = await erase('tenant-many', 2);
    expect(bounded).toEqual({ complete: false, progress: { deleted: 0, cleared: 0, shadowCleared: 2 } });
    expect(await erase('tenant-many')).toEqual({
      complete: true,
      progress: { deleted: 0, cleared: 0, shadowCleared: 1 },
    });
  });
});
