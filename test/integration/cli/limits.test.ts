import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { main } from '../../../infra/cli/main.js';
import { readLimits } from '../../../lib/admin/limits.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { wakeEnvelope } from '../../../lib/messaging/wake-envelope.js';
import { MetricName } from '../../../lib/metric-names.js';
import { harnessTargetFlags } from '../../support/cli-target.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';
import { captureIo } from '../../unit/cli/io.js';

// One call an hour per tenant, a burst of 2: a tenant's third job finds the budget empty and waits queued.
const hourly = defineJob({
  type: 'hourly-call',
  version: 1,
  target: 'B',
  payload: z.strictObject({ n: z.number() }),
  flow: { rateLimit: { provider: 'hourly-api', limit: 1, intervalMs: 3_600_000, burst: 2, scope: 'tenant' } },
  run: async () => ({ outcomeCode: 'called' }),
});

interface BudgetJson {
  provider: string;
  scope: string;
  limit?: number;
  intervalMs?: number;
  burst?: number;
  tokens?: number;
  nextGrantAt?: number;
  waiting: number;
  oldestWaitingSince?: number;
}

let harness: WorkerHarness;

async function limits(...args: string[]) {
  const io = captureIo(Date.now());
  const code = await main(['limits', 'hourly-call', ...args, ...harnessTargetFlags(harness)], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('leasefence limits --provider: each rate budget its rate, burst, tokens and next grant, read from the row', () => {
  beforeAll(async () => {
    harness = await createWorkerHarness('limits-cli', [hourly]);
    const worker = harness.worker({ sleep: async () => {} });
    for (const n of [1, 2, 3]) {
      await harness.send({ tenantId: 'acme', operationId: `call-${n}`, jobType: 'hourly-call', payload: { n } });
      expect((await harness.poll(worker)).failed).toBe(0);
    }
    // Two tokens taken (the burst), the third job deferred: the row the worker wrote is what the CLI reads.
    expect(worker.telemetry.counts.RateLimitDeferred).toBe(1);
  });
  afterAll(async () => {
    await harness.close();
  });

  it("shows the tenant's budget empty, its next grant within the hour, and no row for a scope never taken", async () => {
    const before = Date.now();
    const { code, out } = await limits('--provider', 'hourly-api', '--tenant', 'acme', '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out) as { budgets: BudgetJson[]; limits: unknown[] };
    const [shared, tenant] = report.budgets;
    expect(shared).toEqual({ provider: 'hourly-api', scope: 'shared', waiting: 0 });
    expect(tenant).toMatchObject({ provider: 'hourly-api', scope: 'tenant', limit: 1, burst: 2, tokens: 0 });
    expect(tenant?.nextGrantAt).toBeGreaterThan(before);
    expect(tenant?.nextGrantAt).toBeLessThanOrEqual(harness.clock.now() + 3_600_000);
    // The third job waits on the tenant's budget: counted, with when its wait began.
    expect(tenant).toMatchObject({ waiting: 1, oldestWaitingSince: harness.clock.now() });
    expect(report.limits).toHaveLength(2);
  });

  it('another tenant has its own budget: no row, full, no job waiting; the admin route reads the same', async () => {
    const { code, out } = await limits('--provider', 'hourly-api', '--tenant', 'quiet');
    expect(code).toBe(0);
    expect(out).toMatch(/hourly-api tenant\s+-\s+-\s+full \(no row\)\s+now\s+0\s/);
    const admin = { store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl, payloadsTable: 'unused' };
    const report = await readLimits(admin, { jobType: 'hourly-call', tenantId: 'acme', providers: ['hourly-api'] });
    expect(report.budgets?.map((budget) => [budget.scope, budget.waiting])).toEqual([
      ['shared', 0],
      ['tenant', 1],
    ]);
  });

  it('the waiting job, woken once its budget refills, runs; its waiter is forgotten and its wait measured', async () => {
    harness.clock.advance(3_600_000);
    const worker = harness.worker({ sleep: async () => {} });
    // Its own wake-up is past SQS's 15-minute delay (the sweeper's); this is the wake-up the sweeper sends.
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'call-3' });
    const row = await harness.store.get(identity);
    if (row === undefined) throw new Error('the deferred row is missing');
    await harness.sqs.send(
      new SendMessageCommand({ QueueUrl: harness.queueUrl, MessageBody: serializeEnvelope(wakeEnvelope(row)) }),
    );
    expect(await harness.poll(worker)).toMatchObject({ received: 1, failed: 0 });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', attempts: 1 });
    // It waited the hour: the gauge the RateLimitWait alarm watches.
    expect(worker.telemetry.counts[MetricName.RateLimitWaitSeconds]).toBe(3_600);
    const { out } = await limits('--provider', 'hourly-api', '--tenant', 'acme', '--json');
    const [, tenant] = (JSON.parse(out) as { budgets: BudgetJson[] }).budgets;
    expect(tenant?.waiting).toBe(0);
  });

  it('a bad provider name is refused before any read', async () => {
    const { code, err } = await limits('--provider', 'bad name!');
    expect(code).not.toBe(0);
    expect(err).toMatch(/provider name/);
  });
});
