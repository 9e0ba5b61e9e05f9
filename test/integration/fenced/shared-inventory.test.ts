import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { CapabilityMissingError, OwnershipLostError } from '../../../lib/errors.js';
import { FencedTransactions, type SharedWrite } from '../../../lib/fenced/transaction.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity, type ValidIdentity } from '../../../lib/identity.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { parseLease, parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { requireNoTransactions, requireTransactions } from '../../support/capability.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';
import { countRequests, type RequestCounter } from '../../support/request-counter.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';

const LEASE_MS = 10_000;
const SEED = 20_260_913;

/** A small seeded PRNG (mulberry32), so a failing interleaving can be replayed from its seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One worker process: its own client (real concurrency), its store and its fenced transactions. */
interface Worker {
  client: DynamoDBDocumentClient;
  claim: Claim;
  tx: FencedTransactions;
  counter: RequestCounter;
}

describe('class A: an inventory count shared by many operations', () => {
  let tables: TestTables;
  let inventory: UserTable;
  let admin: DynamoDBDocumentClient;
  const workers: Worker[] = [];

  beforeAll(async () => {
    tables = await createTestTables('fenced-tx');
    inventory = await createUserTable('inventory', { partition: 'sku' });
    admin = testDocumentClient();
  });
  afterAll(async () => {
    for (const worker of workers) worker.client.destroy();
    admin.destroy();
    await inventory.drop();
    await tables.drop();
  });

  function workerFor(claim: Claim, clock: ManualClock): Worker {
    const client = testDocumentClient();
    const store = new WorkItemStore({ client, tableName: tables.jobsTable, clock });
    const worker = {
      client,
      claim,
      tx: new FencedTransactions({ store, client, claim }),
      counter: countRequests(client),
    };
    workers.push(worker);
    return worker;
  }

  /** Enqueues the operation already claimed (fence 1) by a fresh worker. */
  async function firstWorker(identity: ValidIdentity, clock: ManualClock): Promise<Worker> {
    const store = new WorkItemStore({ client: admin, tableName: tables.jobsTable, clock });
    const created = await store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'reserve',
        payloadHash: payloadHash(identity),
        payloadRef: 'order',
        maxAttempts: 100,
      }),
      parseLease({ owner: 'first', leaseMs: LEASE_MS }),
    );
    if (created.outcome !== 'created' || !created.claim) throw new Error('expected a claim');
    return workerFor(created.claim, clock);
  }

  /** The holder's lease lapses and a new worker claims the operation (fence + 1). */
  async function takeOver(identity: ValidIdentity, clock: ManualClock): Promise<Worker> {
    clock.advance(LEASE_MS + 1);
    const store = new WorkItemStore({ client: admin, tableName: tables.jobsTable, clock });
    const claimed = await store.claim(identity, parseLease({ owner: 'next', leaseMs: LEASE_MS }));
    if (!claimed.claimed) throw new Error(`expected a takeover, got ${claimed.reason}`);
    return workerFor(claimed.claim, clock);
  }

  const decrement = (sku: string): SharedWrite => ({
    kind: 'update',
    tableName: inventory.tableName,
    key: { sku },
    add: { count: -1 },
    where: { count: { ge: 1 } },
  });

  async function stock(sku: string, count: number): Promise<void> {
    await admin.send(new PutCommand({ TableName: inventory.tableName, Item: { sku, count } }));
  }

  async function count(sku: string): Promise<unknown> {
    const read = await admin.send(
      new GetCommand({ TableName: inventory.tableName, Key: { sku }, ConsistentRead: true }),
    );
    return read.Item?.count;
  }

  it('a superseded worker commits nothing, even before the new holder has written the record', async (context) => {
    requireTransactions(context);
    // prepare: two operations reserve from one count; order-1 is taken over before its step runs
    await stock('sku-shared', 10);
    const clock = new ManualClock();
    const order1 = parseIdentity({ tenantId: 'shop-1', operationId: 'order-1' });
    const stale = await firstWorker(order1, clock);
    const current = await takeOver(order1, clock);
    const other = await firstWorker(parseIdentity({ tenantId: 'shop-1', operationId: 'order-2' }), new ManualClock());
    // act
    const staleStep = stale.tx.runStep('reserve', [decrement('sku-shared')]);
    // assert: refused by the work item's fence, and the count is untouched
    await expect(staleStep).rejects.toBeInstanceOf(OwnershipLostError);
    expect(await count('sku-shared')).toBe(10);
    await expect(current.tx.runStep('reserve', [decrement('sku-shared')])).resolves.toMatchObject({
      status: 'applied',
    });
    await expect(other.tx.runStep('reserve', [decrement('sku-shared')])).resolves.toMatchObject({ status: 'applied' });
    expect(await count('sku-shared')).toBe(8);
  });

  it('a lease lapsing between the step and completion does not make the new holder decrement again', async (context) => {
    requireTransactions(context);
    // prepare
    await stock('sku-lapse', 5);
    const clock = new ManualClock();
    const identity = parseIdentity({ tenantId: 'shop-1', operationId: 'order-lapse' });
    const first = await firstWorker(identity, clock);
    await expect(
      first.tx.runStep('reserve', [decrement('sku-lapse')], { result: { reserved: 1 } }),
    ).resolves.toMatchObject({ status: 'applied' });
    // act: the lease lapses before completion; the next holder runs the job from the top
    const next = await takeOver(identity, clock);
    const again = await next.tx.runStep('reserve', [decrement('sku-lapse')]);
    const completed = await next.tx.complete({ outcomeCode: 'reserved' }, []);
    // assert
    expect(next.claim.steps.reserve).toMatchObject({ fence: 1, result: { reserved: 1 } });
    expect(again).toMatchObject({ status: 'skipped', result: { reserved: 1 } });
    expect(next.counter.byCommand.TransactWriteItemsCommand).toBe(1);
    expect(completed.status).toBe('applied');
    expect(await count('sku-lapse')).toBe(4);
    await expect(first.tx.complete({ outcomeCode: 'reserved' }, [])).rejects.toBeInstanceOf(OwnershipLostError);
  });

  it('500 decrements from 10 operations with random takeovers leave the count exact', async (context) => {
    requireTransactions(context);
    // prepare
    const operations = 10;
    const stepsPerOperation = 50;
    await stock('sku-bulk', operations * stepsPerOperation);
    const totals = { applied: 0, skipped: 0, staleRejected: 0 };
    const runOperation = async (index: number): Promise<void> => {
      const random = seededRandom(SEED + index);
      const clock = new ManualClock();
      const identity = parseIdentity({ tenantId: 'shop-2', operationId: `order-${index}` });
      let worker = await firstWorker(identity, clock);
      for (let step = 1; step <= stepsPerOperation; step += 1) {
        const name = `dec-${step}`;
        if (random() < 0.1) {
          // the holder stalls before its step; after the takeover its transaction must commit nothing
          const stale = worker;
          worker = await takeOver(identity, clock);
          await expect(stale.tx.runStep(name, [decrement('sku-bulk')])).rejects.toBeInstanceOf(OwnershipLostError);
          totals.staleRejected += 1;
        }
        const outcome = await worker.tx.runStep(name, [decrement('sku-bulk')]);
        expect(outcome.status).toBe('applied');
        totals.applied += 1;
        if (random() < 0.1) {
          // the lease lapses right after the step committed; the next holder must see it done
          worker = await takeOver(identity, clock);
          await expect(worker.tx.runStep(name, [decrement('sku-bulk')])).resolves.toMatchObject({ status: 'skipped' });
          totals.skipped += 1;
        }
      }
      await worker.tx.complete({ outcomeCode: 'reserved', result: { units: stepsPerOperation } }, []);
    };
    // act: all operations at once, each worker on its own client
    await Promise.all(Array.from({ length: operations }, (_, index) => runOperation(index)));
    // assert
    console.log(`[shared inventory] seed ${SEED}: ${JSON.stringify(totals)}`);
    expect(await count('sku-bulk')).toBe(0);
    expect(totals.applied).toBe(operations * stepsPerOperation);
    expect(totals.staleRejected).toBeGreaterThan(0);
    expect(totals.skipped).toBeGreaterThan(0);
    const store = new WorkItemStore({ client: admin, tableName: tables.jobsTable });
    for (let index = 0; index < operations; index += 1) {
      const item = await store.get(parseIdentity({ tenantId: 'shop-2', operationId: `order-${index}` }));
      expect(item?.state).toBe('succeeded');
      expect(Object.keys(item?.steps ?? {})).toHaveLength(stepsPerOperation);
    }
  });

  it('without TransactWriteItems a step fails with CapabilityMissingError and writes nothing', async (context) => {
    requireNoTransactions(context);
    await stock('sku-none', 3);
    const worker = await firstWorker(
      parseIdentity({ tenantId: 'shop-1', operationId: 'order-none' }),
      new ManualClock(),
    );
    await expect(worker.tx.runStep('reserve', [decrement('sku-none')])).rejects.toBeInstanceOf(CapabilityMissingError);
    expect(await count('sku-none')).toBe(3);
  });
});
