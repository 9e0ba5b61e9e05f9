import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { readConfig } from '../../../lib/config.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { SweepDefaults, sweep } from '../../../lib/sweeper/sweeper.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const runs: string[] = [];
const settle = defineJob({
  type: 'settle',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number() }),
  run: async (ctx) => {
    runs.push(ctx.identity.operationId);
    return { outcomeCode: 'settled' };
  },
});
const identity = parseIdentity({ tenantId: 'acme', operationId: 'settle-1' });

describe('cut over one job type at a time: a switched-off type waits, then runs once switched on', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('disabled', [settle]);
  });
  afterAll(async () => {
    await harness.close();
  });

  /** One sweeper pass once the row is overdue (the sweeper re-signals queued rows with a wake-up message). */
  async function sweepOverdue() {
    harness.clock.advance(SweepDefaults.resignalIntervalMs + SweepDefaults.dueGraceMs + 1);
    return sweep({ store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl });
  }

  it('switched off: the message is acknowledged (not quarantined, not dead-lettered), the row waits queued, nothing runs', async () => {
    await harness.send({ ...identity, jobType: 'settle', payload: { amount: 70.25 } });
    const off = harness.worker({ disabledJobTypes: ['settle'] });
    expect(await harness.poll(off)).toEqual({ received: 1, failed: 0, deleted: 1 });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'queued', fence: 0, attempts: 0 });
    expect(runs).toEqual([]);
    expect(off.telemetry.counts).toMatchObject({ Deferred: 1 });
    expect(off.telemetry.counts.Quarantined).toBeUndefined();
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    expect(await harness.queueDepth(harness.dlqUrl)).toEqual({ visible: 0, inFlight: 0 });

    // The sweeper's wake-up while still switched off is acknowledged too; the row is unchanged and keeps waiting.
    expect((await sweepOverdue()).resignalled).toBe(1);
    expect(await harness.poll(off)).toEqual({ received: 1, failed: 0, deleted: 1 });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'queued', fence: 0, attempts: 0 });
    expect(runs).toEqual([]);
  });

  it('switched on: the next wake-up runs it exactly once', async () => {
    expect((await sweepOverdue()).resignalled).toBe(1);
    const on = harness.worker();
    expect(await harness.poll(on)).toEqual({ received: 1, failed: 0, deleted: 1 });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', fence: 1, attempts: 1 });
    expect(runs).toEqual(['settle-1']);
    expect((await sweepOverdue()).resignalled).toBe(0);
    expect(await harness.poll(on)).toEqual({ received: 0, failed: 0, deleted: 0 });
    expect(runs).toEqual(['settle-1']);
  });

  it('a changed payload for a switched-off type is still a conflict, quarantined with nothing changed', async () => {
    const before = await harness.store.get(identity);
    // By reference, so the producer stores no body and the worker is the one to see the different hash.
    await harness.send({ ...identity, jobType: 'settle', payloadRef: 'elsewhere-1', payload: { amount: 1 } });
    // The worker reads a first message's payload before it creates anything, so a ref needs a resolver (here it
    // finds nothing: the row exists, and its hash is what conflicts).
    const off = harness.worker({ disabledJobTypes: ['settle'], payloadResolver: async () => undefined });
    expect(await harness.poll(off)).toEqual({ received: 1, failed: 0, deleted: 1 });
    expect(off.telemetry.counts).toMatchObject({ Quarantined: 1 });
    expect(off.telemetry.counts.Deferred).toBeUndefined();
    expect(await harness.store.get(identity)).toEqual(before);
    expect(runs).toEqual(['settle-1']);
  });

  it('reads LEASEFENCE_DISABLED_JOB_TYPES as a comma-separated list of job types; a bad name is refused', () => {
    const env = { LEASEFENCE_JOBS_TABLE: 'jobs', LEASEFENCE_PAYLOADS_TABLE: 'payloads' };
    expect(readConfig({ ...env, LEASEFENCE_DISABLED_JOB_TYPES: 'settle, refund-settlement' }).disabledJobTypes).toEqual(
      ['settle', 'refund-settlement'],
    );
    expect(readConfig(env).disabledJobTypes).toBeUndefined();
    expect(() => readConfig({ ...env, LEASEFENCE_DISABLED_JOB_TYPES: 'no spaces allowed' })).toThrow(/jobType/);
  });
});
