import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { listParked } from '../../../lib/admin/list.js';
import { retryItem } from '../../../lib/admin/retry.js';
import { RetryableJobError } from '../../../lib/errors.js';
import { parseIdentity, type ValidIdentity } from '../../../lib/identity.js';
import { type AnyJobDefinition, defineJob } from '../../../lib/job-definition.js';
import { WorkState } from '../../../lib/states.js';
import { UNRUNNABLE_CEILING, UnrunnableCode } from '../../../lib/store/unrunnable/unrunnable-requests.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { expectState } from '../../support/expectations.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const runs: string[] = [];
let failFirst = true;

/** A job type of version `version` that fails its first attempt retryably (so its row waits queued, bound to it). */
function invoiceJob(version: number, type = 'invoice'): AnyJobDefinition {
  return defineJob({
    type,
    version,
    target: 'B',
    maxAttempts: 3,
    retry: { baseDelayMs: 1_000, maxDelayMs: 1_000 },
    payload: z.object({ amount: z.number() }),
    run: async (ctx) => {
      if (failFirst && ctx.attempt === 1) throw new RetryableJobError('provider_down', 'provider answered 503');
      runs.push(`${ctx.identity.operationId}@${type}v${version}`);
      return { outcomeCode: 'invoiced' };
    },
  }) as AnyJobDefinition;
}

const invoiceV1 = invoiceJob(1);
const invoiceV2 = invoiceJob(2);
const legacyReport = invoiceJob(1, 'legacy-report');
const SWEEP_EVERY_MS = 3 * 60_000;
const OPERATOR = { actor: 'alice@example.com', reason: 'v1 worker deployed again' };

describe('rows no deployed worker can run: a ceiling and a destination', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('unrunnable', [invoiceV2]);
  });
  afterAll(async () => {
    await harness.close();
  });

  const identity = (operationId: string) => parseIdentity({ tenantId: 'acme', operationId });
  const deps = () => ({
    store: harness.store,
    sqs: harness.sqs,
    queueUrl: harness.queueUrl,
    payloadsTable: harness.tables.payloadsTable,
  });

  /** Leaves `operationId` queued for a retry, bound to what `jobs` run (their first attempt fails retryably). */
  async function queuedRetry(operationId: string, jobType: string, jobs: AnyJobDefinition[]): Promise<ValidIdentity> {
    failFirst = true;
    await harness.send({ tenantId: 'acme', operationId, jobType, payload: { amount: 10 } });
    await harness.poll(harness.worker({ jobs }));
    await expectState(harness.store, identity(operationId), WorkState.queued);
    return identity(operationId);
  }

  /** Sweeper runs (each re-signals what is overdue) each followed by a round of `worker`, until `done` or `max` runs. */
  async function sweepRounds(
    worker: ReturnType<WorkerHarness['worker']>,
    max: number,
    done: () => Promise<boolean>,
    everyMs = SWEEP_EVERY_MS,
  ): Promise<{ rounds: number; resignalled: number }> {
    let resignalled = 0;
    for (let round = 1; round <= max; round += 1) {
      harness.clock.advance(everyMs);
      const summary = await sweep({ store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl });
      resignalled += summary.resignalled;
      await harness.poll(worker, { waitTimeSeconds: 0 });
      if (await done()) return { rounds: round, resignalled };
    }
    return { rounds: max, resignalled };
  }

  it('a row bound to a retired version parks quarantined after a bounded number of re-signals, listed with the reason and the versions the deployment runs; a retry runs it once a worker of its version is back', async () => {
    runs.length = 0;
    const id = await queuedRetry('inv-retired', 'invoice', [invoiceV1]);
    failFirst = false;
    const v2 = harness.worker();

    const parkedAfter = await sweepRounds(
      v2,
      20,
      async () => (await harness.store.get(id))?.state === WorkState.quarantined,
    );

    // Bounded: parked at the ceiling's refusal count, once its minimum wait had passed.
    const rounds = Math.max(UNRUNNABLE_CEILING.refusals, Math.ceil(UNRUNNABLE_CEILING.minWaitMs / SWEEP_EVERY_MS) + 1);
    expect(parkedAfter.rounds).toBeLessThanOrEqual(rounds);
    const parked = await expectState(harness.store, id, WorkState.quarantined);
    expect(parked.errorCode).toBe(UnrunnableCode.version);
    expect(parked.errorMessage).toContain('bound to version 1 of invoice');
    expect(parked.errorMessage).toContain('workers run version 2');
    expect(parked).toMatchObject({ jobVersion: 1, attempts: 1 });
    expect(parked).not.toHaveProperty('unrunnableRefusals');
    expect(runs).toEqual([]);
    // The operator's list shows it, with the reason.
    const listed = await listParked(deps(), { state: WorkState.quarantined });
    expect(listed.items).toContainEqual(
      expect.objectContaining({ operationId: 'inv-retired', errorCode: UnrunnableCode.version }),
    );
    // The loop has ended: the sweeper no longer re-signals it.
    const after = await sweepRounds(v2, 3, async () => false);
    expect(after.resignalled).toBe(0);

    // A worker of version 1 is deployed again: the operator's retry runs it there.
    await retryItem(deps(), id, OPERATOR);
    await harness.poll(harness.worker({ jobs: [invoiceV1] }));
    const done = await expectState(harness.store, id, WorkState.succeeded);
    expect(done).not.toHaveProperty('errorCode');
    expect(runs).toEqual(['inv-retired@invoicev1']);
  });

  it('a row of a job type no worker registers any more (a rollback) parks quarantined the same way', async () => {
    runs.length = 0;
    const id = await queuedRetry('report-rolled-back', 'legacy-report', [invoiceV2, legacyReport]);
    failFirst = false;
    const rolledBack = harness.worker();

    const parkedAfter = await sweepRounds(
      rolledBack,
      20,
      async () => (await harness.store.get(id))?.state === WorkState.quarantined,
    );

    expect(parkedAfter.rounds).toBeLessThan(20);
    const parked = await expectState(harness.store, id, WorkState.quarantined);
    expect(parked.errorCode).toBe(UnrunnableCode.jobType);
    expect(parked.errorMessage).toContain('no worker runs job type legacy-report');
    expect(runs).toEqual([]);
  });

  it('during a rolling deploy, refusals by new workers do not park a row an old worker then claims (the note goes with the claim)', async () => {
    runs.length = 0;
    const id = await queuedRetry('inv-rolling', 'invoice', [invoiceV1]);
    failFirst = false;
    const v2 = harness.worker();

    await sweepRounds(v2, 3, async () => false);
    const noted = await expectState(harness.store, id, WorkState.queued);
    // Each sweep's wake-up, and the retry's own, met a v2 worker: noted, not parked (the ceiling's wait has not passed).
    expect(noted.unrunnableRefusals).toBeGreaterThanOrEqual(3);
    await sweepRounds(harness.worker({ jobs: [invoiceV1] }), 1, async () => true);

    const done = await expectState(harness.store, id, WorkState.succeeded);
    expect(done).not.toHaveProperty('unrunnableRefusals');
    expect(done).not.toHaveProperty('unrunnableSince');
    expect(runs).toEqual(['inv-rolling@invoicev1']);
  });

  it('a switched-off job type waits queued as long as it is off: it is never parked', async () => {
    const id = await queuedRetry('inv-disabled', 'invoice', [invoiceV2]);
    failFirst = false;
    const off = harness.worker({ disabledJobTypes: ['invoice'] });

    // Past both bounds of the ceiling: more refusals than its count, longer than its longest wait.
    const rounds = UNRUNNABLE_CEILING.refusals + 3;
    await sweepRounds(off, rounds, async () => false, Math.ceil(UNRUNNABLE_CEILING.maxWaitMs / rounds) + 60_000);

    const waiting = await expectState(harness.store, id, WorkState.queued);
    expect(waiting).not.toHaveProperty('unrunnableRefusals');
  });
});
