import { describe, expect, it } from 'vitest';
import { coldStartTargets } from '../../bench/report/cold-start-targets.js';
import { runMeta } from '../../bench/report/results.js';
import type { BundleRow } from '../../bench/scenarios/bundles.js';
import { median } from '../../bench/support/stats.js';

/** A figure 5 row whose SDK-external init took `samples` ms, one per round (a number: 15 rounds alike; undefined: not timed). */
function row(name: BundleRow['name'], samples: number | number[] | undefined, bytes = 100_000): BundleRow {
  const values = typeof samples === 'number' ? Array.from({ length: 15 }, () => samples) : samples;
  return {
    name,
    sdkExternalBytes: bytes,
    sdkBundledBytes: bytes * 3,
    initSdkExternal:
      values === undefined
        ? undefined
        : { name, medianMs: median(values), p90Ms: Math.max(...values), runs: values.length, samples: values },
    initSdkBundled: undefined,
  };
}

function targets(rows: BundleRow[]) {
  return coldStartTargets({
    meta: runMeta('quick'),
    bundles: { rows, synthSeconds: 1, coldInvocation: [], composition: [] },
  });
}

describe('figure 5 targets: module init against the peer, bundle size', () => {
  it('judges the worker at 1.0× and the sweeper and admin at 1.1× the peer', () => {
    const [bundle, worker, others] = targets([
      row('worker', 100),
      row('sweeper', 110),
      row('admin', 112),
      row('powertools-idempotency', 100),
    ]);

    expect(bundle?.status).toBe('met');
    expect(worker).toMatchObject({ status: 'met', measured: 'worker 1.00' });
    expect(others).toMatchObject({ status: 'missed', measured: 'sweeper 1.10, admin 1.12' });
  });

  it('judges the median of the per-round ratios, not the ratio of the medians', () => {
    // The machine slowed down after the first round: both sides of each later pair moved together.
    const [, worker] = targets([row('worker', [100, 300, 310]), row('powertools-idempotency', [100, 290, 320])]);

    // Per round 1.00, 1.03, 0.97: median 1.00 (the medians' ratio would be 300 / 290 = 1.03, missed).
    expect(worker).toMatchObject({ status: 'met', measured: 'worker 1.00' });
  });

  it('is not run when the peer has no usable sample', () => {
    const [, worker] = targets([row('worker', [100]), row('powertools-idempotency', [])]);

    expect(worker?.status).toBe('not run');
  });

  it('misses the bundle target above 120 kB', () => {
    const [bundle] = targets([row('worker', 90, 120_001), row('powertools-idempotency', 100)]);

    expect(bundle?.status).toBe('missed');
  });

  it('is not run, never met, when a function or the peer was not timed', () => {
    const [, worker, others] = targets([row('worker', 90), row('sweeper', 90), row('admin', undefined)]);

    expect(worker?.status).toBe('not run');
    expect(others?.status).toBe('not run');
  });
});
