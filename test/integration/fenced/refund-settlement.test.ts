import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { FenceRejectedError, OwnershipLostError } from '../../../lib/errors.js';
import { FencedRecords } from '../../../lib/fenced/records.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { parseLease, parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';
import { countRequests } from '../../support/request-counter.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';

const LEASE_MS = 30_000;
const merchant = 'm_4471';
const identity = parseIdentity({ tenantId: merchant, operationId: 'settle-2026-09-13' });

/** A payment gateway with idempotency keys and lookup by key: a repeated key returns the first refund. */
class FakeGateway {
  private readonly byKey = new Map<string, { id: string; amount: number }>();
  readonly calls: string[] = [];

  async refund(key: string, amount: number): Promise<{ id: string; amount: number }> {
    this.calls.push(key);
    const existing = this.byKey.get(key);
    if (existing) return existing;
    const created = { id: `gw-${this.byKey.size + 1}`, amount };
    this.byKey.set(key, created);
    return created;
  }

  async lookup(key: string): Promise<{ id: string; amount: number } | undefined> {
    return this.byKey.get(key);
  }

  refundsCreated(): number {
    return this.byKey.size;
  }
}

/** One settlement worker: its own client, store and fenced records, aborted when its fence is rejected. */
interface Worker {
  client: DynamoDBDocumentClient;
  store: WorkItemStore;
  claim: Claim;
  abort: AbortController;
  records: FencedRecords;
}

describe('class B: refund settlement with a stalled worker (stamp, reconcile, confirm)', () => {
  let tables: TestTables;
  let refunds: UserTable;
  const clock = new ManualClock();
  const clients: DynamoDBDocumentClient[] = [];

  beforeAll(async () => {
    tables = await createTestTables('fenced-refund');
    refunds = await createUserTable('refunds', { partition: 'merchant', sort: 'refundId' });
  });
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await refunds.drop();
    await tables.drop();
  });

  function worker(claim: Claim, client: DynamoDBDocumentClient, store: WorkItemStore): Worker {
    const abort = new AbortController();
    const records = new FencedRecords({
      client,
      claim,
      signal: abort.signal,
      onFenceRejected: (error) => abort.abort(error),
    });
    return { client, store, claim, abort, records };
  }

  function newClient(): DynamoDBDocumentClient {
    const client = testDocumentClient();
    clients.push(client);
    return client;
  }

  const ref = (refundId: string) => ({ tableName: refunds.tableName, key: { merchant, refundId } });
  const idempotencyKey = (refundId: string) => `${merchant}:${refundId}`;

  async function row(refundId: string): Promise<Record<string, unknown> | undefined> {
    const read = await newClient().send(new GetCommand({ TableName: refunds.tableName, Key: ref(refundId).key }));
    return read.Item;
  }

  /** Sends one refund the way every worker does: stamp, (reconcile if it was in flight), call, confirm. */
  async function settle(w: Worker, gateway: FakeGateway, refundId: string, amount: number, status: string) {
    if (status === 'sending') {
      const earlier = await gateway.lookup(idempotencyKey(refundId));
      expect(earlier).toBeUndefined();
    }
    await w.records.stamp(ref(refundId), {
      set: { status: 'sending' },
      where: { status: { in: ['pending', 'sending'] } },
    });
    const sent = await gateway.refund(idempotencyKey(refundId), amount);
    await w.records.confirm(ref(refundId), {
      set: { status: 'sent', gatewayRefundId: sent.id },
      where: { status: 'sending' },
    });
  }

  it('the stale worker is refused at its confirm, stops, and the gateway made exactly one refund for r_815', async () => {
    // prepare: the settlement job, claimed by A with fence 1, and the refund rows the producer wrote
    const gateway = new FakeGateway();
    const clientA = newClient();
    const storeA = new WorkItemStore({ client: clientA, tableName: tables.jobsTable, clock });
    const enqueued = await storeA.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'settlement',
        payloadHash: payloadHash({ merchant }),
        payloadRef: 'batch-1',
        maxAttempts: 3,
      }),
      parseLease({ owner: 'worker-a', leaseMs: LEASE_MS }),
    );
    if (enqueued.outcome !== 'created' || !enqueued.claim) throw new Error('expected a claim for A');
    const seed = newClient();
    for (const [refundId, status, amount] of [
      ['r_814', 'sent', 1990],
      ['r_815', 'pending', 7025],
      ['r_816', 'pending', 1250],
    ] as const) {
      await seed.send(new PutCommand({ TableName: refunds.tableName, Item: { merchant, refundId, status, amount } }));
    }
    const a = worker(enqueued.claim, clientA, storeA);

    // act 1: A stamps r_815 (pending ▶ sending under fence 1) and stalls before the gateway call
    await a.records.stamp(ref('r_815'), {
      set: { status: 'sending' },
      where: { status: { in: ['pending', 'sending'] } },
    });

    // act 2: A's lease lapses; B claims with fence 2 and settles every row not yet sent
    clock.advance(LEASE_MS + 1);
    const clientB = newClient();
    const storeB = new WorkItemStore({ client: clientB, tableName: tables.jobsTable, clock });
    const claimed = await storeB.claim(identity, parseLease({ owner: 'worker-b', leaseMs: LEASE_MS }));
    if (!claimed.claimed) throw new Error(`expected B to take over, got ${claimed.reason}`);
    expect(claimed.claim).toMatchObject({ fence: 2, takeover: true });
    const b = worker(claimed.claim, clientB, storeB);
    const open = await clientB.send(
      new QueryCommand({
        TableName: refunds.tableName,
        KeyConditionExpression: 'merchant = :m',
        FilterExpression: '#s <> :sent',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':m': merchant, ':sent': 'sent' },
        ConsistentRead: true,
      }),
    );
    expect(open.Items?.map((item) => [item.refundId, item.status])).toEqual([
      ['r_815', 'sending'],
      ['r_816', 'pending'],
    ]);
    for (const item of open.Items ?? []) {
      await settle(b, gateway, String(item.refundId), Number(item.amount), String(item.status));
    }
    await storeB.complete(b.claim, parseJobOutcome({ outcomeCode: 'settled' }));

    // act 3: A resumes where it stalled: the gateway call, then the confirm
    const counterA = countRequests(clientA);
    const replayed = await gateway.refund(idempotencyKey('r_815'), 7025);
    const confirm = a.records.confirm(ref('r_815'), {
      set: { status: 'sent', gatewayRefundId: replayed.id },
      where: { status: 'sending' },
    });

    // assert: the confirm is refused by the fence, A is aborted and writes nothing more
    await expect(confirm).rejects.toBeInstanceOf(FenceRejectedError);
    await expect(confirm).rejects.toMatchObject({ reason: 'newer_claim', fence: 1, recordEpoch: 2 });
    expect(a.abort.signal.aborted).toBe(true);
    const writesBefore = counterA.writes();
    await expect(a.records.stamp(ref('r_816'), { set: { status: 'sending' } })).rejects.toBeInstanceOf(Error);
    expect(counterA.writes()).toBe(writesBefore);
    await expect(storeA.complete(a.claim, parseJobOutcome({ outcomeCode: 'settled' }))).rejects.toBeInstanceOf(
      OwnershipLostError,
    );

    // assert: one refund per row at the gateway, rows confirmed by B under fence 2
    expect(gateway.calls.filter((key) => key === idempotencyKey('r_815'))).toHaveLength(2);
    expect(gateway.refundsCreated()).toBe(2);
    expect(replayed.id).toBe('gw-1');
    expect(await row('r_815')).toMatchObject({ status: 'sent', gatewayRefundId: 'gw-1', writer_epoch: 2 });
    expect(await row('r_816')).toMatchObject({ status: 'sent', gatewayRefundId: 'gw-2', writer_epoch: 2 });
    expect(await row('r_814')).toEqual({ merchant, refundId: 'r_814', status: 'sent', amount: 1990 });
  });
});
