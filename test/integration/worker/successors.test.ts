import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { WorkState } from '../../../lib/states.js';
import { expectState } from '../../support/expectations.js';
import { carrierBusy, RETRY_AT_ONCE } from '../../support/order-jobs.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const notified: string[] = [];
let failFirstAttempt = false;

const notify = defineJob({
  type: 'notify',
  version: 1,
  target: 'B',
  payload: z.strictObject({ channel: z.string(), order: z.string() }),
  run: async (ctx) => {
    notified.push(`${ctx.identity.operationId}:${ctx.payload.channel}`);
    return { outcomeCode: 'notified' };
  },
});

const ship = defineJob({
  type: 'ship',
  version: 1,
  target: 'B',
  ...RETRY_AT_ONCE,
  payload: z.strictObject({ order: z.string(), successorType: z.string().optional() }),
  run: async (ctx) => {
    const type = ctx.payload.successorType ?? 'notify';
    ctx.enqueue(type, { channel: 'email', order: ctx.payload.order }, { name: 'email' });
    ctx.enqueue(type, { channel: 'sms', order: ctx.payload.order }, { name: 'sms' });
    if (failFirstAttempt && ctx.attempt === 1) throw carrierBusy();
    return { outcomeCode: 'shipped' };
  },
});

const notifiedV2: string[] = [];
/** The next version of `notify`, as a rolling deploy brings it: another payload shape, another run. */
const notifyV2 = defineJob({
  type: 'notify',
  version: 2,
  target: 'B',
  payload: z.object({ channel: z.string(), order: z.string() }),
  run: async (ctx) => {
    notifiedV2.push(ctx.identity.operationId);
    return { outcomeCode: 'notified_v2' };
  },
});

describe('ctx.enqueue: a job starts its successors with its completion', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('successor-jobs', [ship, notify]);
  });
  afterAll(async () => {
    await harness.close();
  });

  const identity = (operationId: string) => parseIdentity({ tenantId: 'acme', operationId });

  it('creates the successors with the completion, wakes them, and each runs once', async () => {
    notified.length = 0;
    await harness.send({ tenantId: 'acme', operationId: 'order-1', jobType: 'ship', payload: { order: 'o1' } });
    const worker = harness.worker();

    await harness.poll(worker);

    const parent = await expectState(harness.store, identity('order-1'), WorkState.succeeded);
    expect(parent.successors).toEqual(['order-1/email', 'order-1/sms']);
    await expectState(harness.store, identity('order-1/email'), WorkState.queued);
    expect(notified).toEqual([]);
    // The wake-ups went out after the commit: the next round runs both successors.
    await harness.poll(worker);
    const email = await expectState(harness.store, identity('order-1/email'), WorkState.succeeded);
    expect(email).toMatchObject({ parentOperationId: 'order-1', fence: 1 });
    await expectState(harness.store, identity('order-1/sms'), WorkState.succeeded);
    expect(notified.sort()).toEqual(['order-1/email:email', 'order-1/sms:sms']);
  });

  it('an attempt that fails enqueues nothing; the attempt that completes enqueues each successor once', async () => {
    failFirstAttempt = true;
    try {
      await harness.send({ tenantId: 'acme', operationId: 'order-2', jobType: 'ship', payload: { order: 'o2' } });
      const worker = harness.worker();

      await harness.poll(worker);
      await expectState(harness.store, identity('order-2'), WorkState.queued);
      expect(await harness.store.get(identity('order-2/email'))).toBeUndefined();

      // The retry's wake-up (a redelivery): the second attempt asks for the same successors by name and completes.
      await harness.send({ tenantId: 'acme', operationId: 'order-2', jobType: 'ship', payload: { order: 'o2' } });
      await harness.poll(worker);
      const parent = await expectState(harness.store, identity('order-2'), WorkState.succeeded);
      expect(parent.attempts).toBe(2);
      const email = await expectState(harness.store, identity('order-2/email'), WorkState.queued);
      expect(email.parentOperationId).toBe('order-2');
    } finally {
      failFirstAttempt = false;
    }
  });

  it('a successor the worker cannot write ends the parent failed_terminal (successor_refused), nothing written', async () => {
    await harness.send({
      tenantId: 'acme',
      operationId: 'order-3',
      jobType: 'ship',
      payload: { order: 'o3', successorType: 'not-registered' },
    });

    await harness.poll(harness.worker());

    const parent = await expectState(harness.store, identity('order-3'), WorkState.failed_terminal);
    expect(parent.errorCode).toBe('successor_refused');
    expect(parent.successors).toBeUndefined();
    expect(await harness.store.get(identity('order-3/email'))).toBeUndefined();
  });

  it("a successor is bound to the version that built it: a v2 worker never runs a v1 parent's successor", async () => {
    notified.length = 0;
    notifiedV2.length = 0;
    await harness.send({ tenantId: 'acme', operationId: 'order-4', jobType: 'ship', payload: { order: 'o4' } });
    // The v1 deployment runs the parent; the rolling deploy's v2 worker then receives the successors' wake-ups.
    await harness.poll(harness.worker());
    const v2 = harness.worker({ jobs: [ship, notifyV2] });

    await harness.poll(v2);

    const email = await expectState(harness.store, identity('order-4/email'), WorkState.queued);
    expect(email).toMatchObject({ jobVersion: 1, attempts: 0, fence: 0 });
    expect(notifiedV2).toEqual([]);
    // A worker of the version that built it runs it.
    const { sendWakeSignals } = await import('../../../lib/messaging/wake.js');
    await sendWakeSignals(harness.sqs, harness.queueUrl, [email]);
    await harness.poll(harness.worker());
    await expectState(harness.store, identity('order-4/email'), WorkState.succeeded);
    expect(notified).toContain('order-4/email:email');
    expect(notifiedV2).toEqual([]);
  });
});
