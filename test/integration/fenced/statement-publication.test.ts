import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { FenceRejectedError } from '../../../lib/errors.js';
import { FencedRecords } from '../../../lib/fenced/records.js';
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

/** An object store where a key is written once: each generation's output is immutable. */
class ImmutableObjects {
  readonly objects = new Map<string, string>();

  put(key: string, body: string): void {
    if (this.objects.has(key)) throw new Error(`object ${key} already exists`);
    this.objects.set(key, body);
  }
}

describe('class B: statement publication, only the pointer is fenced', () => {
  let tables: TestTables;
  let pointers: UserTable;
  const clients: DynamoDBDocumentClient[] = [];

  beforeAll(async () => {
    tables = await createTestTables('fenced-statement');
    pointers = await createUserTable('statement-pointers', { partition: 'statement' });
  });
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await pointers.drop();
    await tables.drop();
  });

  function client(): DynamoDBDocumentClient {
    const created = testDocumentClient();
    clients.push(created);
    return created;
  }

  /** A statement job of its own (one identity per test) and two workers, each a store on its own client, one clock. */
  async function statementJob(account: string) {
    const clock = new ManualClock();
    const identity = parseIdentity({ tenantId: 'bank-1', operationId: `statement:${account}:2026-09-13` });
    const alice = { client: client() };
    const bob = { client: client() };
    const aliceStore = new WorkItemStore({ client: alice.client, tableName: tables.jobsTable, clock });
    const bobStore = new WorkItemStore({ client: bob.client, tableName: tables.jobsTable, clock });
    const enqueued = await aliceStore.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'statement',
        payloadHash: payloadHash({ account }),
        payloadRef: account,
        maxAttempts: 5,
      }),
      parseLease({ owner: 'alice', leaseMs: LEASE_MS }),
    );
    if (enqueued.outcome !== 'created' || !enqueued.claim) throw new Error('expected alice to hold the first claim');
    const takeOver = async (): Promise<Claim> => {
      clock.advance(LEASE_MS + 1);
      const claimed = await bobStore.claim(identity, parseLease({ owner: 'bob', leaseMs: LEASE_MS }));
      if (!claimed.claimed) throw new Error(`expected a takeover, got ${claimed.reason}`);
      return claimed.claim;
    };
    const pointer = { tableName: pointers.tableName, key: { statement: `${account}#2026-09-13` } };
    return { alice, bob, aliceClaim: enqueued.claim, takeOver, pointer };
  }

  /** Writes this generation's immutable object, then moves the pointer to it under the claim's fence. */
  async function publish(records: FencedRecords, objects: ImmutableObjects, account: string) {
    const generation = records.claim.fence;
    const objectKey = `statements/${account}/2026-09-13/generation-${generation}.pdf`;
    if (!objects.objects.has(objectKey)) objects.put(objectKey, `statement for ${account}, generation ${generation}`);
    const pointer = { tableName: pointers.tableName, key: { statement: `${account}#2026-09-13` } };
    return records.write(pointer, { set: { objectKey, generation }, writeId: 'publish' });
  }

  async function readPointer(key: Record<string, unknown>) {
    return (await client().send(new GetCommand({ TableName: pointers.tableName, Key: key, ConsistentRead: true })))
      .Item;
  }

  it('a stalled older generation cannot replace the newer pointer; its object stays unreferenced', async () => {
    // prepare
    const job = await statementJob('acct-42');
    const objects = new ImmutableObjects();
    const alice = new FencedRecords({ client: job.alice.client, claim: job.aliceClaim });
    objects.put('statements/acct-42/2026-09-13/generation-1.pdf', 'alice, generation 1');
    // act: alice stalls after her upload; bob takes over, uploads and publishes; alice resumes and publishes
    const bobClaim = await job.takeOver();
    const bob = new FencedRecords({ client: job.bob.client, claim: bobClaim });
    await expect(publish(bob, objects, 'acct-42')).resolves.toMatchObject({ status: 'written' });
    const late = publish(alice, objects, 'acct-42');
    // assert
    await expect(late).rejects.toBeInstanceOf(FenceRejectedError);
    await expect(late).rejects.toMatchObject({ reason: 'newer_claim', fence: 1, recordEpoch: 2 });
    expect(await readPointer(job.pointer.key)).toMatchObject({
      objectKey: 'statements/acct-42/2026-09-13/generation-2.pdf',
      generation: 2,
      writer_epoch: 2,
    });
    expect([...objects.objects.keys()]).toEqual([
      'statements/acct-42/2026-09-13/generation-1.pdf',
      'statements/acct-42/2026-09-13/generation-2.pdf',
    ]);
  });

  it('a newer generation replaces an older pointer, never the other way round', async () => {
    const job = await statementJob('acct-43');
    const objects = new ImmutableObjects();
    const alice = new FencedRecords({ client: job.alice.client, claim: job.aliceClaim });
    await publish(alice, objects, 'acct-43');
    const bob = new FencedRecords({ client: job.bob.client, claim: await job.takeOver() });
    await expect(publish(bob, objects, 'acct-43')).resolves.toMatchObject({ status: 'written' });
    await expect(
      alice.write(job.pointer, { set: { objectKey: 'statements/acct-43/2026-09-13/generation-1.pdf', generation: 1 } }),
    ).rejects.toBeInstanceOf(FenceRejectedError);
    expect(await readPointer(job.pointer.key)).toMatchObject({ generation: 2 });
  });

  it('a lost response of the publication is recognised as applied, not as a conflict', async () => {
    // prepare
    const job = await statementJob('acct-44');
    const objects = new ImmutableObjects();
    const records = new FencedRecords({ client: job.alice.client, claim: job.aliceClaim });
    const counter = countRequests(job.alice.client);
    const drop = dropNextResponse(job.alice.client, 'UpdateCommand');
    // act: the first UpdateItem commits, its response is lost, the SDK sends it again
    const published = await publish(records, objects, 'acct-44');
    // assert
    expect(drop.dropped()).toBe(1);
    expect(published.status).toBe('already_applied');
    expect(published.item).toMatchObject({ generation: 1, writer_epoch: 1 });
    expect(counter.byCommand.UpdateItemCommand).toBe(2);
    expect(counter.byCommand.GetItemCommand ?? 0).toBeLessThanOrEqual(1);
    // a caller's own retry of the same publication (same write id) returns the saved outcome too
    await expect(publish(records, objects, 'acct-44')).resolves.toMatchObject({ status: 'already_applied' });
    // a different write under the same claim is an explicit refusal, not a silent overwrite
    const other = records.write(job.pointer, { set: { objectKey: 'elsewhere', generation: 1 } });
    await expect(other).rejects.toMatchObject({ reason: 'same_claim_already_wrote', superseded: false });
    expect(await readPointer(job.pointer.key)).toMatchObject({
      objectKey: 'statements/acct-44/2026-09-13/generation-1.pdf',
    });
  });
});
