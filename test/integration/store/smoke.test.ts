import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { OwnershipLostError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';
import { dropNextResponse } from '../../support/lost-response.js';
import { countRequests } from '../../support/request-counter.js';

describe('work item store smoke', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await createTestTables('smoke');
  });
  afterAll(async () => {
    await tables.drop();
  });

  it('creates claimed, completes, and a stale claim is rejected', async () => {
    const clock = new ManualClock();
    const client = testDocumentClient();
    const store = new WorkItemStore({ client, tableName: tables.jobsTable, clock });
    const counter = countRequests(client);
    const identity = { tenantId: 't1', operationId: 'op-1' };
    const created = await store.enqueue(
      { identity, jobType: 'demo', payloadHash: payloadHash({ a: 1 }), payloadRef: 'ref-1', maxAttempts: 3 },
      { owner: 'w1', leaseMs: 1000 },
    );
    expect(created.outcome).toBe('created');
    if (created.outcome !== 'created' || !created.claim) throw new Error('expected a claim');
    clock.advance(2000);
    const second = await store.claim(identity, { owner: 'w2', leaseMs: 1000 });
    expect(second.claimed).toBe(true);
    if (!second.claimed) throw new Error('expected takeover');
    expect(second.claim.fence).toBe(2);
    expect(second.claim.takeover).toBe(true);
    await expect(store.complete(created.claim, { outcomeCode: 'ok' })).rejects.toBeInstanceOf(OwnershipLostError);
    const drop = dropNextResponse(client, 'UpdateCommand');
    await store.complete(second.claim, { outcomeCode: 'ok' });
    expect(drop.dropped()).toBe(1);
    const item = await store.get(identity);
    expect(item?.state).toBe('succeeded');
    expect(item?.fence).toBe(2);
    console.log(counter.byCommand);
  });
});
