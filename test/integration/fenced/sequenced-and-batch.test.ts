import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { FenceRejectedError, InvalidInputError } from '../../../lib/errors.js';
import { type FencedBatchReport, FencedRecords } from '../../../lib/fenced/records.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { parseLease, parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';
import { dropNextResponse } from '../../support/lost-response.js';
import { countRequests } from '../../support/request-counter.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';

const LEASE_MS = 10_000;

describe('class B: sequenced writes and fenced batches', () => {
  let tables: TestTables;
  let records: UserTable;
  let client: DynamoDBDocumentClient;

  beforeAll(async () => {
    tables = await createTestTables('fenced-seq');
    records = await createUserTable('owned-records', { partition: 'id' });
    client = testDocumentClient();
  });
  afterAll(async () => {
    client.destroy();
    await records.drop();
    await tables.drop();
  });

  /** A job claimed with fence 1, and a function that lets its lease lapse and claims it again (fence + 1). */
  async function job(operationId: string) {
    const clock = new ManualClock();
    const store = new WorkItemStore({ client, tableName: tables.jobsTable, clock });
    const identity = parseIdentity({ tenantId: 't1', operationId });
    const created = await store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'ledger',
        payloadHash: payloadHash({ operationId }),
        payloadRef: 'r',
        maxAttempts: 5,
      }),
      parseLease({ owner: 'first', leaseMs: LEASE_MS }),
    );
    if (created.outcome !== 'created' || !created.claim) throw new Error('expected a claim');
    const takeOver = async (): Promise<Claim> => {
      clock.advance(LEASE_MS + 1);
      const claimed = await store.claim(identity, parseLease({ owner: 'next', leaseMs: LEASE_MS }));
      if (!claimed.claimed) throw new Error(`expected a takeover, got ${claimed.reason}`);
      return claimed.claim;
    };
    return { claim: created.claim, takeOver };
  }

  const ref = (id: string) => ({ tableName: records.tableName, key: { id } });
  const read = async (id: string) =>
    (await client.send(new GetCommand({ TableName: records.tableName, Key: { id }, ConsistentRead: true }))).Item;

  it('writes of one claim land in order; a reordered older write is rejected without aborting the job', async () => {
    // prepare
    const { claim, takeOver } = await job('seq-1');
    let aborted = false;
    const fenced = new FencedRecords({ client, claim, onFenceRejected: () => (aborted = true) });
    // act: three writes in order, then write 5 overtakes write 4
    for (const seq of [1, 2, 3]) await fenced.writeInSequence(ref('ledger-1'), seq, { set: { phase: `phase-${seq}` } });
    await fenced.writeInSequence(ref('ledger-1'), 5, { set: { phase: 'phase-5' } });
    const reordered = fenced.writeInSequence(ref('ledger-1'), 4, { set: { phase: 'phase-4' } });
    // assert
    await expect(reordered).rejects.toBeInstanceOf(FenceRejectedError);
    await expect(reordered).rejects.toMatchObject({ reason: 'sequence_not_newer', superseded: false });
    expect(aborted).toBe(false);
    expect(await read('ledger-1')).toMatchObject({ phase: 'phase-5', writer_epoch: 1, writer_seq: 5 });
    // a newer claim starts its own sequence at 1; the older claim is then superseded
    const next = new FencedRecords({ client, claim: await takeOver() });
    await expect(next.writeInSequence(ref('ledger-1'), 1, { set: { phase: 'next-1' } })).resolves.toMatchObject({
      status: 'written',
    });
    await expect(fenced.writeInSequence(ref('ledger-1'), 6, { set: { phase: 'phase-6' } })).rejects.toMatchObject({
      reason: 'newer_claim',
      superseded: true,
    });
    expect(aborted).toBe(true);
    expect(await read('ledger-1')).toMatchObject({ phase: 'next-1', writer_epoch: 2, writer_seq: 1 });
  });

  it('racing sequenced writes never let a lower sequence number overwrite a higher one', async () => {
    const { claim } = await job('seq-race');
    const fenced = new FencedRecords({ client, claim });
    const order = [7, 2, 9, 1, 5, 10, 3, 8, 4, 6];
    const results = await Promise.allSettled(
      order.map((seq) => fenced.writeInSequence(ref('ledger-race'), seq, { set: { phase: `phase-${seq}` } })),
    );
    const rejected = results.filter((result) => result.status === 'rejected');
    for (const result of rejected) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({ reason: 'sequence_not_newer' });
    }
    expect(await read('ledger-race')).toMatchObject({ phase: 'phase-10', writer_seq: 10 });
  });

  it('a sequenced write whose response was lost is recognised as applied', async () => {
    const { claim } = await job('seq-lost');
    const fenced = new FencedRecords({ client, claim });
    await fenced.writeInSequence(ref('ledger-lost'), 1, { set: { phase: 'one' } });
    const privateClient = testDocumentClient();
    const own = new FencedRecords({ client: privateClient, claim });
    dropNextResponse(privateClient, 'UpdateCommand');
    await expect(own.writeInSequence(ref('ledger-lost'), 2, { set: { phase: 'two' } })).resolves.toMatchObject({
      status: 'already_applied',
    });
    expect(await read('ledger-lost')).toMatchObject({ phase: 'two', writer_seq: 2 });
    privateClient.destroy();
  });

  it('a batch reports written, refused-by-condition and fenced records exactly', async () => {
    // prepare: five records of one operation; one already refunded; a newer claim stamped record 3
    const { claim, takeOver } = await job('batch-1');
    for (const [id, status] of [
      ['b-0', 'paid'],
      ['b-1', 'refunded'],
      ['b-2', 'paid'],
      ['b-3', 'paid'],
      ['b-4', 'paid'],
    ]) {
      await client.send(new PutCommand({ TableName: records.tableName, Item: { id, status } }));
    }
    const first = new FencedRecords({ client, claim });
    const entries = ['b-0', 'b-1', 'b-2'].map((id) => ({
      ref: ref(id),
      change: { set: { status: 'refunding' }, where: { status: 'paid' } },
    }));
    const counter = countRequests(client);
    // act 1: the whole batch under fence 1, without throwing
    const report = await first.writeEach(entries, { throwOnIncomplete: false });
    // assert 1
    expect(report.complete).toBe(false);
    expect(report.written.map((r) => r.key.id).sort()).toEqual(['b-0', 'b-2']);
    expect(report.businessRejected.map((r) => r.ref.key.id)).toEqual(['b-1']);
    expect(report.businessRejected[0]?.error).toMatchObject({ unmet: ['status'] });
    expect(counter.byCommand.UpdateItemCommand).toBe(3);

    // act 2: a newer claim stamps b-3; the old claim's batch over b-3 and b-4 stops at the fence
    const next = new FencedRecords({ client, claim: await takeOver() });
    await next.stamp(ref('b-3'), { set: { status: 'refunding' } });
    const stale = first.writeEach(
      ['b-3', 'b-4'].map((id) => ({ ref: ref(id), change: { set: { status: 'refunding' } } })),
      { concurrency: 1 },
    );
    // assert 2: thrown by default, with the report naming each record's fate
    await expect(stale).rejects.toBeInstanceOf(FenceRejectedError);
    const thrown = await stale.catch((error: FenceRejectedError) => error.report as FencedBatchReport);
    expect(thrown.fenced.map((r) => r.ref.key.id)).toEqual(['b-3']);
    expect(thrown.notAttempted.map((r) => r.key.id)).toEqual(['b-4']);
    expect(await read('b-4')).toEqual({ id: 'b-4', status: 'paid' });
  });

  it('a batch with bad input writes nothing', async () => {
    const { claim } = await job('batch-bad');
    const fenced = new FencedRecords({ client, claim });
    const counter = countRequests(client);
    const batch = fenced.writeEach([
      { ref: ref('c-0'), change: { set: { status: 'x' } } },
      { ref: ref('c-1'), change: { set: { id: 'renamed' } } },
    ]);
    await expect(batch).rejects.toBeInstanceOf(InvalidInputError);
    expect(counter.total()).toBe(0);
    counter.detach();
  });
});
