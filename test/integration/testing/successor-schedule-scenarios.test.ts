import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runConformance } from '../../../infra/testing/run-conformance.js';
import { defineJob, type JobDefinition } from '../../../lib/job-definition.js';
import { defineSchedules } from '../../../lib/messaging/schedule.js';
import { fixtureConformance, fixtureTables, goodOrderJob } from '../../support/conformance-jobs.js';
import { engineEndpoints, uniqueName } from '../../support/engine.js';

const TABLE = uniqueName('lf-successors');
const SUCCESSOR_IDS = ['successor-stale', 'successor-takeover'];

const leaf = defineJob({
  type: 'chain-leaf',
  version: 1,
  target: 'B',
  payload: z.strictObject({ accountId: z.string() }),
  run: async () => {
    throw new Error('a successor is never run by the harness');
  },
});

/** The good class B job, asking for one successor named as `name` says (default: a stable name). */
function chainJob(type: string, name: (operationId: string) => { name?: string; operationId?: string }) {
  const good = goodOrderJob(TABLE);
  return defineJob({
    ...good,
    type,
    run: async (ctx) => {
      const outcome = await good.run(ctx);
      ctx.enqueue(leaf.type, { accountId: ctx.payload.accountId }, name(ctx.identity.operationId));
      return outcome;
    },
  });
}

const check = (
  job: JobDefinition<unknown>,
  extra: { successorJobs?: JobDefinition<unknown>[]; schedules?: Parameters<typeof defineSchedules>[0] } = {},
) =>
  runConformance(job, {
    samplePayloads: fixtureConformance([job.type]).samplePayloads[job.type] ?? [],
    endpoint: engineEndpoints().dynamo,
    tables: fixtureTables(TABLE),
    successorJobs: extra.successorJobs ?? [job, leaf],
    schedules: defineSchedules(extra.schedules ?? []),
  });

const results = (report: Awaited<ReturnType<typeof check>>, ids: readonly string[]) =>
  report.scenarios.filter((scenario) => ids.includes(scenario.id));
const control = (report: Awaited<ReturnType<typeof check>>, id: number) =>
  report.controls.find((candidate) => candidate.id === id);

const SCHEDULE = {
  name: 'nightly-order',
  tenantId: 'acme',
  expression: 'cron(0 2 * * ? *)',
  timeZone: 'Europe/Berlin',
};

describe('the conformance harness runs the successor and schedule fault tests (issue 26)', () => {
  it('a stably named successor and a schedule of the job: the stale holder writes none, a takeover writes them once, a tick delivered three times is one job run once: GO', async () => {
    const job = chainJob('chain-good', () => ({ name: 'leaf' })) as JobDefinition<unknown>;
    const report = await check(job, {
      schedules: [{ ...SCHEDULE, jobType: job.type, payload: { accountId: 'account-7', amount: 12 } }],
    });
    const successors = results(report, SUCCESSOR_IDS);
    expect(successors.map((scenario) => [scenario.id, scenario.status])).toEqual([
      ['successor-stale', 'passed'],
      ['successor-takeover', 'passed'],
    ]);
    expect(successors[0]?.evidence).toMatchObject({
      mode: report.transactions ? 'transaction' : 'durable_step',
      successors: 1,
      supersededRows: 0,
      staleWritesLanded: 0,
      parentFence: 2,
    });
    const [tick] = results(report, ['duplicate-tick']);
    expect(tick?.status).toBe('passed');
    expect(tick?.evidence).toMatchObject({ schedule: 'nightly-order', ticks: 3, jobs: 1, runs: 1, state: 'succeeded' });
    expect(control(report, 4)?.scenarios).toContain('successor-stale');
    expect(control(report, 1)?.evidence).toContain('duplicate-tick');
    expect(report.verdict).toBe('GO');
  });

  it("a successor type the module does not define, and a schedule payload the job's schema rejects: NO-GO on controls 4 and 1", async () => {
    const job = chainJob('chain-unregistered', () => ({ name: 'leaf' })) as JobDefinition<unknown>;
    const report = await check(job, {
      successorJobs: [job],
      schedules: [{ ...SCHEDULE, jobType: job.type, payload: { accountId: 'account-7' } }],
    });
    const successors = results(report, SUCCESSOR_IDS);
    expect(successors.map((scenario) => scenario.status)).toEqual(['failed', 'failed']);
    expect(successors[0]?.detail).toContain('ctx.enqueue refused a successor of type chain-leaf');
    const [tick] = results(report, ['duplicate-tick']);
    expect(tick?.status).toBe('failed');
    expect(tick?.detail).toContain("payload fails the job's schema");
    expect(tick?.evidence).toMatchObject({ jobs: 1, runs: 0 });
    expect(control(report, 4)?.status).toBe('FAIL');
    expect(control(report, 1)?.status).toBe('FAIL');
    expect(report.verdict).toBe('NO-GO');
  });

  it('a successor named with a random part: enqueued twice by a takeover of the durable step (NO-GO); harmless in one transaction', async () => {
    const job = chainJob('chain-random', (operationId) => ({
      operationId: `${operationId}/leaf-${randomUUID().slice(0, 8)}`,
    })) as JobDefinition<unknown>;
    const report = await check(job);
    const takeover = results(report, ['successor-takeover'])[0];
    if (report.transactions) {
      // The crashed holder's successors rode in its refused transaction: only the takeover's exist.
      expect(takeover?.evidence).toMatchObject({ mode: 'transaction', supersededRows: 0 });
      expect(takeover?.status).toBe('passed');
      return;
    }
    expect(takeover?.status).toBe('failed');
    expect(takeover?.detail).toContain('the chain was enqueued twice');
    expect(takeover?.evidence).toMatchObject({ mode: 'durable_step', supersededRows: 1 });
    expect(control(report, 4)?.remedy).toContain('the same on every attempt');
    expect(report.verdict).toBe('NO-GO');
  });
});
