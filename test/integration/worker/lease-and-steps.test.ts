import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toSqsEvent } from '../../../infra/local/sqs-event-source.js';
import { LeaseInDoubtError, OwnershipLostError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import { freezeForever, waitUntil } from '../../support/fake-external.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const LEASE_MS = 5_000;
let release: () => void = () => {};
let observedSignal: AbortSignal | undefined;
let reportProgress: () => void = () => {};
/** Label of the slow job whose run() has started (the claim commits before the payload is loaded and run starts). */
let runningLabel = '';
const stepRuns = { reserve: 0, ship: 0 };
let freezeBetweenSteps = true;

const slow = defineJob({
  type: 'slow',
  version: 1,
  target: 'B',
  leaseMs: LEASE_MS,
  payload: z.strictObject({ label: z.string() }),
  run: async (ctx) => {
    observedSignal = ctx.signal;
    reportProgress = () => ctx.progress();
    runningLabel = ctx.payload.label;
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { outcomeCode: 'done' };
  },
});

const twoSteps = defineJob({
  type: 'two-steps',
  version: 1,
  target: 'B',
  leaseMs: LEASE_MS,
  payload: z.strictObject({ sku: z.string() }),
  run: async (ctx) => {
    // Decided when the attempt starts: the test flips the flag as soon as step one is recorded, which can be
    // before this attempt's recordStep response has arrived.
    const freezeAfterFirstStep = freezeBetweenSteps;
    const reservation = await ctx.step('reserve', async () => {
      stepRuns.reserve += 1;
      return { reservationId: `res-${ctx.fence}` };
    });
    if (freezeAfterFirstStep) await freezeForever();
    const shipment = await ctx.step('ship', async () => {
      stepRuns.ship += 1;
      return { shipmentId: `ship-for-${reservation.reservationId}` };
    });
    return { outcomeCode: 'shipped', result: shipment };
  },
});

describe('progress-driven heartbeats and durable steps', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('lease', [slow, twoSteps]);
  });
  afterAll(async () => {
    await harness.close();
  });

  async function startInBackground(
    operationId: string,
    jobType: string,
    payload: unknown,
    heartbeatIntervalMs: number,
  ) {
    // The payload is stored but no message is queued: only this worker ever sees the first delivery.
    const hash = payloadHash(payload);
    await harness.payloads.put({ tenantId: 'ops', operationId }, payload, hash);
    const body = JSON.stringify({
      v: 1,
      kind: 'job',
      tenantId: 'ops',
      operationId,
      jobType,
      payloadHash: hash,
      payload: { inline: true },
    });
    const worker = harness.worker({ workerId: `first-${operationId}` });
    const runtime = worker.runtime as unknown as { options: { heartbeatIntervalMs?: number } };
    runtime.options.heartbeatIntervalMs = heartbeatIntervalMs;
    const done = worker(toSqsEvent([{ MessageId: `m-${operationId}`, ReceiptHandle: 'r', Body: body }], 'arn:q'));
    return { worker, done };
  }

  it('renews only after progress; without progress the lease expires, a takeover wins, and the stale completion is refused', async () => {
    const identity = parseIdentity({ tenantId: 'ops', operationId: 'slow-1' });
    const start = harness.clock.now();
    const { worker, done } = await startInBackground('slow-1', 'slow', { label: 'one' }, 15);
    expect(await waitUntil(() => runningLabel === 'one')).toBe(true);
    harness.clock.advance(1_000);
    reportProgress();
    expect(
      await waitUntil(async () => (await harness.store.get(identity))?.leaseExpiresAt === start + 1_000 + LEASE_MS),
    ).toBe(true);
    expect(await waitUntil(() => (worker.telemetry.counts.HeartbeatSkippedNoProgress ?? 0) >= 3)).toBe(true);
    expect((await harness.store.get(identity))?.leaseExpiresAt).toBe(start + 1_000 + LEASE_MS);

    harness.clock.advance(LEASE_MS + 1);
    const takeover = await harness.store.claim(identity, parseLease({ owner: 'second', leaseMs: LEASE_MS }));
    expect(takeover.claimed).toBe(true);
    // The lease keeper's next tick sees the local deadline passed; only then does the job go on (no race with it).
    expect(await waitUntil(() => observedSignal?.aborted === true)).toBe(true);
    release();
    const response = await done;

    expect(response.batchItemFailures).toEqual([]);
    // The local lease deadline passed without a confirmed renewal: lease doubt ended the attempt unwritten.
    expect(observedSignal?.reason).toBeInstanceOf(LeaseInDoubtError);
    expect(worker.telemetry.counts.Succeeded ?? 0).toBe(0);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'claimed', fence: 2, leaseOwner: 'second' });
  });

  it('a heartbeat that finds the fence superseded aborts the job through its signal', async () => {
    const identity = parseIdentity({ tenantId: 'ops', operationId: 'slow-2' });
    const { worker, done } = await startInBackground('slow-2', 'slow', { label: 'two' }, 15);
    expect(await waitUntil(() => runningLabel === 'two')).toBe(true);
    // A cancel supersedes the fence while the lease is still valid locally (no lease doubt).
    await harness.store.cancel(identity, { actor: 'ops', reason: 'superseded' });
    expect(observedSignal?.aborted).toBe(false);

    reportProgress();

    expect(await waitUntil(() => observedSignal?.aborted === true, 3_000)).toBe(true);
    const response = await done;

    expect(response.batchItemFailures).toEqual([]);
    expect(worker.telemetry.counts.OwnershipLost).toBe(1);
    expect(observedSignal?.reason).toBeInstanceOf(OwnershipLostError);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'cancelled', fence: 2 });
  });

  it('a takeover skips finished steps, reuses their results, and runs only the remaining one', async () => {
    freezeBetweenSteps = true;
    const identity = parseIdentity({ tenantId: 'ops', operationId: 'order-7' });
    await startInBackground('order-7', 'two-steps', { sku: 'sku-1' }, 0);
    expect(await waitUntil(async () => (await harness.store.get(identity))?.steps?.reserve !== undefined)).toBe(true);
    harness.clock.advance(LEASE_MS + 1);
    freezeBetweenSteps = false;
    await harness.send({ tenantId: 'ops', operationId: 'order-7', jobType: 'two-steps', payload: { sku: 'sku-1' } });

    await harness.poll(harness.worker({ workerId: 'second' }));

    expect(stepRuns).toEqual({ reserve: 1, ship: 1 });
    expect(await harness.store.get(identity)).toMatchObject({
      state: 'succeeded',
      fence: 2,
      result: { shipmentId: 'ship-for-res-1' },
      steps: { reserve: { fence: 1 }, ship: { fence: 2 } },
    });
  });
});
