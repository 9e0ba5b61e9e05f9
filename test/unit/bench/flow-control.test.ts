import { describe, expect, it } from 'vitest';
import { flowControlSection, flowControlTargets } from '../../bench/report/flow-control-section.js';
import { type BenchResults, runMeta } from '../../bench/report/results.js';
import type { BundleReport } from '../../bench/scenarios/bundles.js';
import type { FlowControlReport, FlowModeRow } from '../../bench/scenarios/flow-control.js';
import type { HandlerBatchReport } from '../../bench/scenarios/handler-batches.js';

/** Figure 11's verdicts (issue #42 item 6), from hand-made reports: the limit held, its units, what was not seen. */

function row(mode: FlowModeRow['mode'], overrides: Partial<FlowModeRow> = {}): FlowModeRow {
  const limit = mode === 'per-tenant limit' ? 2 : undefined;
  return {
    mode,
    quietWaitP50Ms: 40,
    quietWaitP99Ms: 90,
    noisyWaitP50Ms: 900,
    sent: 1_010,
    started: 1_010,
    duplicateRuns: 0,
    perKey: [
      { tenantId: 'noisy', limit, highest: limit ?? 8 },
      { tenantId: 'quiet', limit, highest: 1 },
    ],
    regranted: 0,
    concurrencyWaits: mode === 'per-tenant limit' ? 500 : 0,
    seconds: 12,
    ...overrides,
  };
}

function report(limited: Partial<FlowModeRow> = {}, units = { unlimited: 4, limited: 6 }): FlowControlReport {
  return {
    noisyJobs: 1_000,
    quietJobs: 10,
    pool: 8,
    bulkConsumers: 6,
    perTenantLimit: 2,
    jobMs: 20,
    rows: [row('no limits'), row('per-tenant limit', limited), row('priorities')],
    units: { jobs: 20, unlimited: { wru: units.unlimited, rru: 1 }, limited: { wru: units.limited, rru: 1.5 } },
  };
}

function targets(flowControl: FlowControlReport | undefined, others: Partial<BenchResults> = {}) {
  const results: BenchResults = { meta: runMeta('quick'), ...others, ...(flowControl ? { flowControl } : {}) };
  return Object.fromEntries(flowControlTargets(results).map((target) => [target.figure, target]));
}

describe('figure 11 targets', () => {
  it('meets the concurrency target when no limited key ran above its limit', () => {
    const verdict = targets(report())['11'];

    expect(verdict?.status).toBe('met');
    expect(verdict?.measured).toBe('noisy: 2 of 2, quiet: 1 of 2; 0 re-grants; 0 duplicate runs');
  });

  it('forgives one extra running job per counted re-grant, and no more', () => {
    const above = row('per-tenant limit').perKey.map((key) =>
      key.tenantId === 'noisy' ? { ...key, highest: 4 } : key,
    );

    expect(targets(report({ perKey: above, regranted: 2 }))['11']?.status).toBe('met');
    expect(targets(report({ perKey: above, regranted: 1 }))['11']?.status).toBe('missed');
    expect(targets(report({ perKey: above, regranted: 0 }))['11']?.status).toBe('missed');
  });

  it('misses when a job ran twice, whatever the concurrency', () => {
    expect(targets(report({ duplicateRuns: 1 }))['11']?.status).toBe('missed');
  });

  it('is not evaluated (never met) when some job never started: the run did not see everything', () => {
    const verdict = targets(report({ started: 1_009 }))['11'];

    expect(verdict?.status).toBe('not evaluated');
    expect(verdict?.note).toContain('1 of 1,010 jobs never started');
  });

  it('is not evaluated when the limited mode had no limited key', () => {
    const unlimitedKeys = row('no limits').perKey;

    expect(targets(report({ perKey: unlimitedKeys }))['11']?.status).toBe('not evaluated');
  });

  it('judges the extra write units per job against 2 WRU', () => {
    expect(targets(report({}, { unlimited: 4, limited: 6 }))['11 (units)']).toMatchObject({
      status: 'met',
      measured: '+2.0 WRU (4.0 → 6.0), +0.5 RRU',
    });
    expect(targets(report({}, { unlimited: 4, limited: 6.5 }))['11 (units)']?.status).toBe('missed');
    expect(targets(report({}, { unlimited: 4, limited: Number.NaN }))['11 (units)']?.status).toBe('missed');
  });

  it('reports the quiet waits of every mode and leaves figures 5 and 9 to themselves', () => {
    const ran = targets(report(), {
      bundles: {} as BundleReport,
      handlerBatches: {} as HandlerBatchReport,
    });

    expect(ran['11 (waits)']).toMatchObject({
      status: 'reported',
      measured:
        'no limits: p50 40 ms, p99 90 ms; per-tenant limit: p50 40 ms, p99 90 ms; priorities: p50 40 ms, p99 90 ms',
    });
    expect(ran['11 (limits off)']).toMatchObject({ status: 'reported', measured: expect.stringContaining('5 and 9') });
    expect(targets(report())['11 (limits off)']?.status).toBe('not run');
  });

  it('is not run, every row, when figure 11 did not run', () => {
    expect(Object.values(targets(undefined)).map((target) => target.status)).toEqual([
      'not run',
      'not run',
      'not run',
      'not run',
    ]);
  });
});

describe('figure 11 section', () => {
  it('says when the noisy tenant sent fewer than 10,000 jobs', () => {
    expect(flowControlSection(report())).toContain('Quick mode: the noisy tenant sent 1,000 jobs, not 10,000');
    expect(flowControlSection({ ...report(), noisyJobs: 10_000 })).not.toContain('Quick mode');
  });
});
