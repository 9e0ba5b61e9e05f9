import { describe, expect, it } from 'vitest';
import { runConformance } from '../../../infra/testing/run-conformance.js';
import { defineJob } from '../../../lib/job-definition.js';
import { fixtureConformance, fixtureTables, goodOrderJob } from '../../support/conformance-jobs.js';
import { engineEndpoints, uniqueName } from '../../support/engine.js';

const TABLE = uniqueName('lf-approvals');
const APPROVAL_IDS = ['approval-never-runs', 'approval-racing-cancel', 'approval-replaced-payload'];

/** The good class B job behind an approval gate (every job, or by predicate on the amount). */
function gatedOrder(approval: Parameters<typeof defineJob<{ accountId: string; amount: number }>>[0]['approval']) {
  const good = goodOrderJob(TABLE);
  return defineJob({ ...good, type: 'gated-order', ...(approval ? { approval } : {}) });
}

const check = (job: ReturnType<typeof gatedOrder>) =>
  runConformance(job, {
    samplePayloads: fixtureConformance([job.type]).samplePayloads[job.type] ?? [],
    endpoint: engineEndpoints().dynamo,
    tables: fixtureTables(TABLE),
  });

describe('the conformance harness runs the approval fault tests on a job type with an approval gate', () => {
  it('a gated job done right passes all three, and the fence scenarios still run it (as approved): GO', async () => {
    const report = await check(gatedOrder({ required: true, expiresAfterMs: 3_600_000 }));
    const approvals = report.scenarios.filter((scenario) => APPROVAL_IDS.includes(scenario.id));
    expect(approvals.map((scenario) => [scenario.id, scenario.status, scenario.detail])).toEqual(
      APPROVAL_IDS.map((id) => [id, 'passed', expect.any(String)]),
    );
    expect(approvals.find((scenario) => scenario.id === 'approval-never-runs')?.evidence).toMatchObject({
      deliveries: 6,
      state: 'awaiting_approval',
      runs: 0,
    });
    expect(approvals.find((scenario) => scenario.id === 'approval-replaced-payload')?.evidence).toMatchObject({
      refusal: 'payload_hash_mismatch',
      unchanged: true,
      own: 'approved',
      runs: 1,
    });
    expect(report.scenarios.find((scenario) => scenario.id === 'stale-resume')?.status).toBe('passed');
    expect(report.verdict).toBe('GO');
  });

  it('a sample the predicate does not gate is NOT EVALUATED for the approval scenarios, saying why', async () => {
    const report = await check(gatedOrder({ when: (payload) => payload.amount > 1_000_000, expiresAfterMs: 60_000 }));
    const approvals = report.scenarios.filter((scenario) => APPROVAL_IDS.includes(scenario.id));
    expect(approvals.map((scenario) => scenario.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(approvals[0]?.detail).toContain('needs no approval');
    expect(report.verdict).toBe('NOT EVALUATED');
  });

  it('a job type without a gate runs none of them', async () => {
    const report = await check(gatedOrder(undefined));
    expect(report.scenarios.filter((scenario) => APPROVAL_IDS.includes(scenario.id))).toEqual([]);
    // Nor the successor scenarios (its run asks for no successor) or a duplicate tick (no schedule given).
    expect(report.scenarios.filter((scenario) => /^successor-|^duplicate-tick$/.test(scenario.id))).toEqual([]);
  });
});
