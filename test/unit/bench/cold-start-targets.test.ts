import { describe, expect, it } from 'vitest';
import { coldStartTargets } from '../../bench/report/cold-start-targets.js';
import { runMeta } from '../../bench/report/results.js';
import type { BundleRow } from '../../bench/scenarios/bundles.js';
import type { BundleComposition } from '../../bench/support/bundle-composition.js';
import { RulesFloor } from '../../bench/support/rules-floor.js';
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

function targets(rows: BundleRow[], composition: BundleComposition[] = []) {
  return coldStartTargets({
    meta: runMeta('quick'),
    bundles: { rows, synthSeconds: 1, coldInvocation: [], composition },
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
    expect(worker).toMatchObject({ status: 'met', measured: 'worker 1.00 (1.00–1.00)' });
    expect(others).toMatchObject({ status: 'missed', measured: 'sweeper 1.10 (1.10–1.10), admin 1.12 (1.12–1.12)' });
  });

  it('judges the per-round ratios, not the ratio of the medians', () => {
    // The machine slowed down after the first round of each three: both sides of each later pair moved together.
    const repeat = (values: number[]) => Array.from({ length: 5 }, () => values).flat();
    const [, worker] = targets([
      row('worker', repeat([100, 300, 310])),
      row('powertools-idempotency', repeat([100, 290, 320])),
    ]);

    // Per round 1.00, 1.03, 0.97: median 1.00 (the medians' ratio would be 300 / 290 = 1.03). Its interval reaches
    // 1.03, above the limit: not met, and the note says why.
    expect(worker).toMatchObject({ status: 'missed', measured: 'worker 1.00 (0.97–1.03)' });
    expect(worker?.note).toContain("Within this run's noise: the median of worker is within 1.0×");
  });

  it('does not judge met a median within the limit whose 95 % interval reaches above it', () => {
    // 61 rounds of ratios spread 0.80–1.30 around a median of 1.05: the median is within 1.1×, the interval is not.
    const rounds = 61;
    const peer = Array.from({ length: rounds }, () => 100);
    const spread = Array.from({ length: rounds }, (_, round) => 80 + (50 * round) / (rounds - 1));
    const tight = Array.from({ length: rounds }, (_, round) => 104 + (2 * round) / (rounds - 1));
    const [, , others] = targets([
      row('worker', tight),
      row('sweeper', spread),
      row('admin', tight),
      row('powertools-idempotency', peer),
    ]);

    expect(others?.status).toBe('missed');
    expect(others?.measured).toBe('sweeper 1.05 (0.98–1.12), admin 1.05 (1.05–1.05)');
    const [, , met] = targets([
      row('worker', tight),
      row('sweeper', tight),
      row('admin', tight),
      row('powertools-idempotency', peer),
    ]);
    expect(met?.status).toBe('met');
  });

  it('is not run when the peer has no usable sample', () => {
    const [, worker] = targets([row('worker', [100]), row('powertools-idempotency', [])]);

    expect(worker?.status).toBe('not run');
  });

  it('misses the bundle target above 120 kB', () => {
    const [bundle] = targets([row('worker', 90, 120_001), row('powertools-idempotency', 100)]);

    expect(bundle?.status).toBe('missed');
  });

  it("gives a missed init target the rules floor's ratio and each function's share above it", () => {
    const [, worker, others] = targets([
      row('worker', 127),
      row('sweeper', 120),
      row('admin', 115),
      row(RulesFloor.worker, 109),
      row(RulesFloor.plainClient, 95),
      row('powertools-idempotency', 100),
    ]);

    expect(worker?.status).toBe('missed');
    expect(worker?.note).toContain('imports at 1.09× the peer');
    expect(worker?.note).toContain("leasefence's own share: worker 0.18.");
    // The floor itself is over 1.0×: the note says the target is below it.
    expect(worker?.note).toContain('The 1.0× target is below that floor in this run.');
    expect(others?.note).toContain('plain DynamoDB client');
    expect(others?.note).toContain('sweeper 0.25, admin 0.20.');
    expect(others?.note).not.toContain('below that floor');
  });

  it('leaves the floor out of the notes when it was not measured, and never judges from it', () => {
    const [, worker] = targets([
      row('worker', 127),
      row(RulesFloor.worker, undefined),
      row('powertools-idempotency', 100),
    ]);
    const [, met] = targets([row('worker', 90), row('powertools-idempotency', 100)]);

    expect(worker).toMatchObject({ status: 'missed' });
    expect(worker?.note).toBeUndefined();
    expect(met).toMatchObject({ status: 'met' });
    expect(met?.note).toBeUndefined();
  });

  it("adds the rules floor's size to the missed bundle target when it was built", () => {
    const [withFloor] = targets([row('worker', 90, 222_900), row(RulesFloor.worker, 90, 62_000)]);
    const [notBuilt] = targets([row('worker', 90, 222_900), row(RulesFloor.worker, 90, Number.NaN)]);

    expect(withFloor?.note).toContain('is 62.0 kB minified in this run: 120.0 kB leaves 58.0 kB');
    expect(notBuilt?.status).toBe('missed');
    expect(notBuilt?.note).toBeUndefined();
  });

  it("names the missed bundle's parts from this run's figure 5c, and types no size of its own", () => {
    const composition: BundleComposition[] = [
      {
        name: 'worker',
        totalBytes: 200_000,
        parts: [
          { part: 'lib/store/', bytes: 60_000 },
          { part: 'zod', bytes: 40_000 },
          { part: 'lib/ (root files)', bytes: 20_000 },
          { part: '@aws-lambda-powertools/logger', bytes: 17_000 },
          { part: '@aws-lambda-powertools/batch', bytes: 6_000 },
          { part: 'examples/', bytes: 3_000 },
        ],
      },
    ];
    const [bundle] = targets([row('worker', 90, 200_000)], composition);

    expect(bundle?.note).toBe(
      "Over the limit (figure 5c): zod/mini 40.0 kB (lib/ and the example payload schemas alike), Powertools 23.0 kB and leasefence's own lib/ 80.0 kB (the store, the worker runtime, the fenced writes) of the worker's 200.0 kB.",
    );
  });

  it('is not run, never met, when a function or the peer was not timed', () => {
    const [, worker, others] = targets([row('worker', 90), row('sweeper', 90), row('admin', undefined)]);

    expect(worker?.status).toBe('not run');
    expect(others?.status).toBe('not run');
  });
});
