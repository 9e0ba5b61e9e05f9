import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AmbiguousOutcomeError, RetryableJobError } from '../../../lib/errors.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';
import { createRetryWaker } from '../../../lib/messaging/retry-wake.js';
import { sendWakeSignals } from '../../../lib/messaging/wake.js';
import { drainQueue } from '../../support/queue-reader.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/** Runs per operation id, so each test counts its own job. */
const runs = new Map<string, number>();

// No backoff: the retry is due at once, so its wake-up carries DelaySeconds 0 and the next poll receives it.
const flaky = defineJob({
  type: 'flaky',
  version: 1,
  target: 'B',
  maxAttempts: 3,
  retry: { baseDelayMs: 0, maxDelayMs: 0 },
  payload: z.strictObject({ failWith: z.enum(['retryable', 'ambiguous']) }),
  run: async (ctx) => {
    runs.set(ctx.identity.operationId, (runs.get(ctx.identity.operationId) ?? 0) + 1);
    if (ctx.attempt === 1 && ctx.payload.failWith === 'retryable') {
      throw new RetryableJobError('provider_down', 'provider answered 503');
    }
    if (ctx.attempt === 1) throw new AmbiguousOutcomeError('provider timed out');
    return { outcomeCode: 'done' };
  },
});

// Not one test here runs the sweeper: every second attempt is reached through the retry's own wake-up.
describe('a retry wakes itself through the real worker (no sweeper run)', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('retrywake', [flaky]);
  });
  afterAll(async () => {
    await harness.close();
  });

  it.each([
    ['retryable', 'provider_down'],
    ['ambiguous', 'ambiguous_outcome'],
  ] as const)(
    'a %s failure with attempts left sends its own wake-up and runs again on the next poll',
    async (failWith, errorCode) => {
      const identity = parseIdentity({ tenantId: 'acme', operationId: `wake-${failWith}` });
      await harness.send({ ...identity, jobType: 'flaky', payload: { failWith } });
      const worker = harness.worker();

      const first = await harness.poll(worker);
      expect(first).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      expect(await harness.store.get(identity)).toMatchObject({ state: 'queued', attempts: 1, errorCode });
      expect(await harness.queueDepth()).toEqual({ visible: 1, inFlight: 0 });

      const second = await harness.poll(worker);

      expect(second).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      expect(runs.get(identity.operationId)).toBe(2);
      expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', attempts: 2, fence: 2 });
      expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    },
  );

  it('the wake-up names the job and its payload binding, never the body', async () => {
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wake-body' });
    await harness.send({ ...identity, jobType: 'flaky', payload: { failWith: 'retryable' } });
    await harness.poll(harness.worker());

    const messages = await drainQueue(harness.sqs, harness.queueUrl);

    expect(messages).toHaveLength(1);
    const parsed = parseEnvelope(messages[0]?.body ?? '');
    expect(parsed.ok && parsed.envelope).toMatchObject({
      kind: 'wake',
      ...identity,
      jobType: 'flaky',
      payload: { inline: true },
    });
    expect(messages[0]?.body).not.toContain('retryable');
  });

  it('duplicates of the wake-up are harmless: two workers, three copies, one more run, one claim', async () => {
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wake-duplicates' });
    await harness.send({ ...identity, jobType: 'flaky', payload: { failWith: 'retryable' } });
    await harness.poll(harness.worker());
    const queued = await harness.store.get(identity);
    if (!queued) throw new Error('missing row');
    // Two more copies of the same signal, as at-least-once delivery or a sweeper re-signal could add.
    expect(await sendWakeSignals(harness.sqs, harness.queueUrl, [queued, queued])).toMatchObject({ sent: 2 });
    expect(await harness.queueDepth()).toEqual({ visible: 3, inFlight: 0 });
    const workers = [harness.worker({ workerId: 'worker-a' }), harness.worker({ workerId: 'worker-b' })];

    for (let round = 0; round < 3; round += 1) {
      await Promise.all(workers.map((worker) => harness.poll(worker, { visibilityTimeoutSeconds: 60 })));
    }

    expect(runs.get(identity.operationId)).toBe(2);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', attempts: 2, fence: 2 });
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('a wake-up that cannot be sent is left to the sweeper, and the caller is told so (no throw)', async () => {
    const wake = createRetryWaker(async () => harness.sqs, `${harness.queueUrl}-missing`);
    const subject = {
      tenantId: 'acme',
      operationId: 'wake-lost',
      jobType: 'flaky',
      payloadHash: 'a'.repeat(64),
      payloadInline: true,
    };

    expect(await wake(subject, 0)).toBe('send_failed');
    expect(await wake(subject, 900_001)).toBe('beyond_delay_limit');
  });
});
