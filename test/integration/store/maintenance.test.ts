import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { createTestTables, engineEndpoints, type TestTables, testDocumentClient } from '../../support/engine.js';

/** The store's whole-table chores that the harness and the local stack use instead of their own requests. */
describe('store maintenance: the whole-table read and the transaction probe', () => {
  let tables: TestTables;
  const client = testDocumentClient();
  let store: OperatorStore;

  beforeAll(async () => {
    tables = await createTestTables('maintenance');
    store = new OperatorStore({ client, tableName: tables.jobsTable });
  });
  afterAll(async () => {
    await tables.drop();
    client.destroy();
  });

  it('allRows reads every row of every kind, across pages, to the table’s end', async () => {
    // prepare: more rows than one page holds, of two kinds
    const written = Array.from({ length: 11 }, (_, index) => ({
      pk: `tenant-${index % 3}#0`,
      sk: `row-${index}`,
      kind: index % 2 === 0 ? 'work' : 'audit',
    }));
    for (const Item of written) await client.send(new PutCommand({ TableName: tables.jobsTable, Item }));

    // act
    const seen: Record<string, unknown>[] = [];
    for await (const row of store.maintenance.allRows(4)) seen.push(row);

    // assert: nothing missed, nothing twice
    expect(seen.map((row) => row.sk).sort()).toEqual(written.map((row) => row.sk).sort());
  });

  it('the transaction probe says what the engine can do, and writes nothing', async () => {
    const before: Record<string, unknown>[] = [];
    for await (const row of store.maintenance.allRows()) before.push(row);

    const supported = await store.maintenance.supportsTransactions();

    expect(supported).toBe(engineEndpoints().transactions);
    const after: Record<string, unknown>[] = [];
    for await (const row of store.maintenance.allRows()) after.push(row);
    expect(after).toHaveLength(before.length);
  });
});
