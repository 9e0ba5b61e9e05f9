import { describe, expect, it } from 'vitest';
import { type ConformanceReport, runConformance } from '../../../infra/testing/run-conformance.js';
import {
  fixtureConformance,
  fixtureTables,
  goodNotifyJob,
  goodOrderJob,
  knownBadJobs,
} from '../../support/conformance-jobs.js';
import { engineEndpoints, uniqueName } from '../../support/engine.js';

const TABLE = uniqueName('lf-known-bad');
const jobs = [...knownBadJobs(TABLE), goodOrderJob(TABLE), goodNotifyJob()];
const conformance = fixtureConformance(jobs.map((job) => job.type));

async function check(type: string): Promise<ConformanceReport> {
  const job = jobs.find((candidate) => candidate.type === type);
  if (!job) throw new Error(`no fixture ${type}`);
  return runConformance(job, {
    samplePayloads: conformance.samplePayloads[type] ?? [],
    endpoint: engineEndpoints().dynamo,
    tables: fixtureTables(TABLE),
  });
}

const failedControls = (report: ConformanceReport) =>
  report.controls.filter((control) => control.status === 'FAIL').map((control) => control.id);
const evidenceOf = (report: ConformanceReport, id: number) => report.controls[id - 1]?.evidence ?? '';

describe('known-bad job definitions come out NO-GO on the right control', () => {
  it('a class B job done right is GO: every scenario passed, no unfenced path', async () => {
    const report = await check('good-order');
    expect(report.scenarios.map((scenario) => [scenario.id, scenario.status, scenario.detail])).toEqual(
      report.scenarios.map((scenario) => [scenario.id, 'passed', scenario.detail]),
    );
    expect(report.unfencedWrites).toEqual([]);
    expect(report.verdict).toBe('GO');
  });

  it('a class D job done right is GO: a crash and a timeout both end unknown with one call', async () => {
    const report = await check('good-notify');
    expect(report.verdict).toBe('GO');
    const ended = (id: string) => report.scenarios.find((scenario) => scenario.id === id)?.evidence;
    expect(ended('crash-after-effect')).toMatchObject({ state: 'unknown', effects: 1 });
    expect(ended('provider-timeout')).toMatchObject({ state: 'unknown', effects: 1 });
  });

  it('an unfenced raw-client write: NO-GO on control 4, naming the table and the call', async () => {
    const report = await check('raw-client-write');
    expect(report.verdict).toBe('NO-GO');
    expect(failedControls(report)).toContain(4);
    expect(evidenceOf(report, 4)).toContain(`unfenced path: PutItem on ${TABLE}`);
    expect(report.unfencedWrites.map((write) => [write.table, write.call])).toContainEqual([TABLE, 'PutItem']);
  });

  it('a class C job whose reconcile never finds the effect: NO-GO on control 6, reconcile held to the provider', async () => {
    const report = await check('reconcile-never-finds');
    expect(report.verdict).toBe('NO-GO');
    expect(failedControls(report)).toContain(6);
    expect(evidenceOf(report, 6)).toContain(
      "reconcile answered not_done while the provider held the operation's effect",
    );
    expect(report.controls[5]?.remedy).toContain('reconcile must look the effect up by ctx.idempotencyKey');
    expect(report.reconcileFindings).toContainEqual(
      expect.objectContaining({ kind: 'not_done_with_effect', scenario: 'crash-after-effect', held: 1 }),
    );
    // The second charge reused the key: the provider deduplicated it, so it is one effect (counted by key).
    expect(report.effectCounting).toContain('distinct idempotency key');
  });

  it('a class D job with retries (hand-built past defineJob): NO-GO on control 5, its stated limit', async () => {
    const report = await check('class-d-with-retries');
    expect(report.verdict).toBe('NO-GO');
    expect(failedControls(report)).toContain(5);
    expect(evidenceOf(report, 5)).toContain('class D allows exactly one attempt, this definition allows 3');
    // The runtime still holds the line: a claim that finds the effect-may-have-happened mark parks the item
    // unknown instead of calling again, so the provider saw one call.
    const crash = report.scenarios.find((scenario) => scenario.id === 'crash-after-effect');
    expect(crash?.evidence.effects).toBe(1);
  });

  it('a record keyed so two operations share it: NO-GO on control 5, naming the shared table', async () => {
    const report = await check('record-shared-by-operations');
    expect(report.verdict).toBe('NO-GO');
    expect(failedControls(report)).toContain(5);
    expect(evidenceOf(report, 5)).toContain(`a record of ${TABLE} is shared by two operations`);
    expect(failedControls(report)).not.toContain(4);
  });
});
