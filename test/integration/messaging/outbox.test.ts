import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InvalidInputError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { enqueueTransactItems, type OutboxDependencies, outboxReplay } from '../../../lib/messaging/outbox.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { requireTransactions } from '../../support/capability.js';
import { drainQueue } from '../../support/queue-reader.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const shipped: unknown[] = [];
const ship = defineJob({
  type: 'ship',
  version: 1,
  target: 'B',
  payload: z.strictObject({ orderId: z.string(), items: z.number().int() }),
  run: async (ctx) => {
    shipped.push(ctx.payload);
    return { outcomeCode: 'shipped' };
  },
});

describe('transactional enqueue (the outbox): the job lands with the business write or not at all', () => {
  let harness: WorkerHarness;
  let orders: UserTable;
  let deps: OutboxDependencies;

  beforeAll(async () => {
    harness = await createWorkerHarness('outbox', [ship]);
    orders = await createUserTable('orders', { partition: 'orderId' });
    deps = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      rows: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: [ship], clock: harness.clock },
      payloadsTable: harness.tables.payloadsTable,
    };
  });
  afterAll(async () => {
    await orders?.drop();
    await harness?.close();
  });

  /** The business write: a new order, only if it does not exist yet. */
  const placeOrder = (orderId: string) => ({
    Put: {
      TableName: orders.tableName,
      Item: { orderId, status: 'placed' },
      ConditionExpression: 'attribute_not_exists(orderId)',
    },
  });
  const job = (orderId: string) => ({
    tenantId: 'acme',
    operationId: `order-${orderId}/ship`,
    jobType: 'ship',
    payload: { orderId, items: 3 },
  });
  const identityOf = (orderId: string) => parseIdentity({ tenantId: 'acme', operationId: `order-${orderId}/ship` });
  const order = async (orderId: string) =>
    (await harness.client.send(new GetCommand({ TableName: orders.tableName, Key: { orderId } }))).Item;

  it('business write and job commit together; the wake-up after the commit runs the job', async (context) => {
    requireTransactions(context);
    const outbox = await enqueueTransactItems(deps, job('o-1'));

    await harness.client.send(new TransactWriteCommand({ TransactItems: [placeOrder('o-1'), ...outbox.items] }));
    const woken = await outbox.wake();
    await harness.poll(harness.worker());

    expect(woken.wake).toBe('sent');
    expect(await order('o-1')).toEqual({ orderId: 'o-1', status: 'placed' });
    expect(await harness.store.get(outbox.identity)).toMatchObject({ state: 'succeeded', payloadInline: true });
    expect(shipped).toEqual([{ orderId: 'o-1', items: 3 }]);
  });

  it('a failing business condition cancels the transaction: no job row and no payload', async (context) => {
    requireTransactions(context);
    await harness.client.send(new TransactWriteCommand({ TransactItems: [placeOrder('o-2')] }));
    const outbox = await enqueueTransactItems(deps, job('o-2'));

    const failed = await harness.client
      .send(new TransactWriteCommand({ TransactItems: [placeOrder('o-2'), ...outbox.items] }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect((failed as Error | undefined)?.name).toBe('TransactionCanceledException');
    expect(await harness.store.get(outbox.identity)).toBeUndefined();
    expect(await harness.payloads.get(outbox.identity)).toBeUndefined();
    expect(await outboxReplay(deps, outbox)).toEqual({ outcome: 'absent' });
  });

  it('a crash between commit and wake-up: the sweeper wakes the job, which runs exactly once', async (context) => {
    requireTransactions(context);
    const outbox = await enqueueTransactItems(deps, job('o-3'));
    await harness.client.send(new TransactWriteCommand({ TransactItems: [placeOrder('o-3'), ...outbox.items] }));
    // No wake(): the producer crashed right after the commit.
    const before = shipped.length;
    harness.clock.advance(1);

    const sweepAndPoll = async () => {
      const swept = await sweep({
        store: harness.store,
        sqs: harness.sqs,
        queueUrl: harness.queueUrl,
        clock: harness.clock,
        dueGraceMs: 0,
      });
      await harness.poll(harness.worker(), { waitTimeSeconds: 2 });
      return swept.resignalled;
    };

    const first = await sweepAndPoll();
    harness.clock.advance(60_000);
    const second = await sweepAndPoll(); // a later sweep finds nothing left to wake

    expect([first, second]).toEqual([1, 0]);
    expect(shipped.slice(before)).toEqual([{ orderId: 'o-3', items: 3 }]);
    expect(await harness.store.get(outbox.identity)).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('a retried transaction is a replay: cancelled on the row, no second job, no second run', async (context) => {
    requireTransactions(context);
    const before = { row: await harness.store.get(identityOf('o-1')), runs: shipped.length };
    const again = await enqueueTransactItems(deps, job('o-1'));

    const failed = await harness.client
      .send(new TransactWriteCommand({ TransactItems: [placeOrder('o-1'), ...again.items] }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await again.wake(); // even a wake-up sent by mistake finds the finished row
    await harness.poll(harness.worker(), { waitTimeSeconds: 1 });

    expect((failed as Error | undefined)?.name).toBe('TransactionCanceledException');
    expect(await outboxReplay(deps, again)).toEqual({ outcome: 'replay', state: 'succeeded', outcomeCode: 'shipped' });
    expect(await harness.store.get(again.identity)).toEqual(before.row);
    expect(shipped).toHaveLength(before.runs);
  });

  it('another payload for an identity that exists: outboxReplay says conflict', async (context) => {
    requireTransactions(context);
    const other = await enqueueTransactItems(deps, { ...job('o-1'), payload: { orderId: 'o-1', items: 9 } });

    expect(await outboxReplay(deps, other)).toEqual({
      outcome: 'conflict',
      storedPayloadHash: payloadHash({ orderId: 'o-1', items: 3 }),
    });
  });

  it('bad input is a typed error before anything is built or written (any engine)', async () => {
    const depth = await harness.queueDepth();
    const bad = [
      { ...job('x'), tenantId: 'ac#me' },
      { ...job('x'), jobType: 'unknown-type' },
      { ...job('x'), jobVersion: 0 },
      { ...job('x'), payload: { orderId: 'x', items: Number.NaN } },
      { ...job('x'), payload: undefined },
    ];
    for (const input of bad) {
      await expect(enqueueTransactItems(deps, input)).rejects.toBeInstanceOf(InvalidInputError);
    }
    await expect(enqueueTransactItems({ ...deps, payloadRetentionDays: 0 }, job('x'))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect(await harness.store.get(identityOf('x'))).toBeUndefined();
    expect(await harness.payloads.get(identityOf('x'))).toBeUndefined();
    expect(await harness.queueDepth()).toEqual(depth);
    expect(await drainQueue(harness.sqs, harness.queueUrl)).toHaveLength(0);
  });
});
