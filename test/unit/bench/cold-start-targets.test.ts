import { describe, expect, it } from 'vitest';
import { coldStartTargets } from '../../bench/report/cold-start-targets.js';
import { runMeta } from '../../bench/report/results.js';
import type { BundleRow } from '../../bench/scenarios/bundles.js';

/** A figure 5 row whose SDK-external init median is `medianMs` (undefined: not timed). */
function row(name: BundleRow['name'], medianMs: number | undefined, bytes = 100_000): BundleRow {
  return {
    name,
    sdkExternalBytes: bytes,
    sdkBundledBytes: bytes * 3,
    initSdkExternal: medianMs === undefined ? undefined : { name, medianMs, p90Ms: medianMs, runs: 15 },
    initSdkBundled: undefined,
  };
}

function targets(rows: BundleRow[]) {
  return coldStartTargets({ meta: runMeta('quick'), bundles: { rows, synthSeconds: 1, coldInvocation: [] } });
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
