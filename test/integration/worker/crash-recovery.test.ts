import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toSqsEvent } from '../../../infra/local/sqs-event-source.js';
import { AmbiguousOutcomeError } from '../../../lib/errors.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { sweepToUnknownTransition } from '../../../lib/store/operator/operator-transitions.js';
import {
  FakeGateway,
  FakeMailer,
  freezeForever,
  reconcileWithGateway,
  waitUntil,
} from '../../support/fake-external.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const gateway = new FakeGateway();
const mailer = new FakeMailer();
let crashAfterExternalCall = true;

const charge = defineJob({
  type: 'charge',
  version: 1,
  target: 'C',
  maxAttempts: 3,
  leaseMs: 5_000,
  payload: z.strictObject({ amount: z.number().positive() }),
  run: async (ctx) => {
    const crash = crashAfterExternalCall; // decided when the attempt starts, not when the test flips it
    const created = await gateway.charge(ctx.idempotencyKey, ctx.payload.amount);
    if (crash) await freezeForever();
    return { outcomeCode: 'charged', result: { chargeId: created.id } };
  },
  reconcile: reconcileWithGateway(gateway),
});

const notify = defineJob({
  type: 'notify',
  version: 1,
  target: 'D',
  leaseMs: 5_000,
  payload: z.strictObject({ to: z.string() }),
  run: async (ctx) => {
    const crash = crashAfterExternalCall; // decided when the attempt starts, not when the test flips it
    await mailer.send(ctx.payload.to);
    if (ctx.payload.to.startsWith('timeout')) throw new AmbiguousOutcomeError('mail server timed out after sending');
    if (crash) await freezeForever();
    return { outcomeCode: 'sent' };
  },
});

describe('crash after the external call, before completion', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('crash', [charge, notify]);
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Delivers the next message to a worker that freezes mid-flight: its batch never returns, nothing is deleted. */
  async function deliverToFrozenWorker(): Promise<void> {
    const received = await harness.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: harness.queueUrl,
        MaxNumberOfMessages: 1,
        VisibilityTimeout: 1,
        WaitTimeSeconds: 2,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    expect(received.Messages).toHaveLength(1);
    void harness.worker({ workerId: 'frozen' })(
      toSqsEvent(received.Messages ?? [], 'arn:aws:sqs:us-east-1:000000000000:q'),
    );
  }

  it('class C: the redelivered attempt reconciles by idempotency key instead of charging again', async () => {
    crashAfterExternalCall = true;
    await harness.send({ tenantId: 'shop', operationId: 'charge-1', jobType: 'charge', payload: { amount: 42 } });
    await deliverToFrozenWorker();
    expect(await waitUntil(() => gateway.charges.size === 1)).toBe(true);
    harness.clock.advance(6_000);
    crashAfterExternalCall = false;
    const second = harness.worker({ workerId: 'second' });

    const round = await harness.poll(second, { waitTimeSeconds: 5 });

    expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
    const item = await harness.store.get(parseIdentity({ tenantId: 'shop', operationId: 'charge-1' }));
    expect(item).toMatchObject({
      state: 'succeeded',
      fence: 2,
      attempts: 2,
      outcomeCode: 'charged',
      result: { chargeId: 'ch_1' },
    });
    expect(gateway.chargeCalls).toBe(1);
    expect(gateway.lookupCalls).toBe(1);
    expect(second.telemetry.counts).toMatchObject({ Claims: 1, Takeovers: 1, Succeeded: 1 });
  });

  it('class D: one attempt only; the redelivery is not run and the expired lease parks as unknown', async () => {
    crashAfterExternalCall = true;
    await harness.send({
      tenantId: 'shop',
      operationId: 'mail-1',
      jobType: 'notify',
      payload: { to: 'ada@example.com' },
    });
    await deliverToFrozenWorker();
    expect(await waitUntil(() => mailer.sent.length === 1)).toBe(true);
    harness.clock.advance(6_000);
    crashAfterExternalCall = false;

    const round = await harness.poll(harness.worker({ workerId: 'second' }), { waitTimeSeconds: 5 });

    expect(round).toMatchObject({ received: 1, deleted: 1 });
    expect(mailer.sent).toEqual(['ada@example.com']);
    const stuck = await harness.store.get(parseIdentity({ tenantId: 'shop', operationId: 'mail-1' }));
    expect(stuck).toMatchObject({ state: 'claimed', attempts: 1, maxAttempts: 1 });
    if (!stuck) throw new Error('missing item');
    // What the sweeper does with an expired, exhausted lease.
    const swept = await harness.store.applyOperator(stuck, sweepToUnknownTransition(stuck, harness.clock.now()));
    expect(swept.ok).toBe(true);
    expect(await harness.store.get(parseIdentity({ tenantId: 'shop', operationId: 'mail-1' }))).toMatchObject({
      state: 'unknown',
      fence: 2,
    });
  });

  it('class D: an ambiguous result parks unknown at once and a redelivery does nothing', async () => {
    crashAfterExternalCall = false;
    mailer.sent.length = 0;
    await harness.send({
      tenantId: 'shop',
      operationId: 'mail-2',
      jobType: 'notify',
      payload: { to: 'timeout@example.com' },
    });

    await harness.poll(harness.worker());
    await harness.send({
      tenantId: 'shop',
      operationId: 'mail-2',
      jobType: 'notify',
      payload: { to: 'timeout@example.com' },
    });
    await harness.poll(harness.worker());

    expect(mailer.sent).toEqual(['timeout@example.com']);
    expect(await harness.store.get(parseIdentity({ tenantId: 'shop', operationId: 'mail-2' }))).toMatchObject({
      state: 'unknown',
      errorCode: 'ambiguous_outcome',
      attempts: 1,
    });
  });
});
