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

const PEER = 'powertools-idempotency';

describe("figure 5 targets: leasefence's own share of init above the rules floor, bundle size", () => {
  it('judges the worker at +0.10 above its floor and the sweeper and admin at +0.05 above theirs', () => {
    const [bundle, worker, others] = targets([
      row('worker', 120),
      row(RulesFloor.worker, 110),
      row('sweeper', 113),
      row('admin', 116),
      row(RulesFloor.plainClient, 110),
      row(PEER, 100),
    ]);

    expect(bundle?.status).toBe('met');
    expect(worker).toMatchObject({ status: 'met', measured: 'worker +0.10 (0.10–0.10; 1.20×); floor 1.10×' });
    expect(others).toMatchObject({
      status: 'missed',
      measured: 'sweeper +0.03 (0.03–0.03; 1.13×), admin +0.06 (0.06–0.06; 1.16×); floor 1.10×',
    });
  });

  it('takes the share per round, so a drift of the machine moves function, floor and peer alike', () => {
    // The machine slowed down after the first round of each three: every side of each later round moved together.
    const repeat = (values: number[]) => Array.from({ length: 5 }, () => values).flat();
    const [, worker] = targets([
      row('worker', repeat([108, 324, 327])),
      row(RulesFloor.worker, repeat([100, 300, 300])),
      row(PEER, repeat([100, 300, 300])),
    ]);

    // Per round +0.08, +0.08, +0.09: the median is +0.08 and the interval within +0.10.
    expect(worker).toMatchObject({ status: 'met', measured: 'worker +0.08 (0.08–0.09; 1.08×); floor 1.00×' });
  });

  it('does not judge met a median share within the limit whose 95 % interval reaches above it', () => {
    // 61 rounds of shares spread -0.15…+0.35 around a median of +0.10: within the limit, its interval is not.
    const rounds = 61;
    const flat = (value: number) => Array.from({ length: rounds }, () => value);
    const spread = Array.from({ length: rounds }, (_, round) => 95 + (50 * round) / (rounds - 1));
    const [, worker] = targets([row('worker', spread), row(RulesFloor.worker, flat(110)), row(PEER, flat(100))]);

    expect(worker?.status).toBe('missed');
    expect(worker?.note).toContain("Within this run's noise: the median share of worker is within +0.10");
  });

  it('is not run, never met, when the floor, the peer or a function was not timed', () => {
    const [, noFloor] = targets([row('worker', 90), row(PEER, 100)]);
    const [, noPeer] = targets([row('worker', 90), row(RulesFloor.worker, 90), row(PEER, [])]);
    const [, worker, others] = targets([
      row('worker', 90),
      row(RulesFloor.worker, 90),
      row('sweeper', 90),
      row('admin', undefined),
      row(RulesFloor.plainClient, 90),
      row(PEER, 100),
    ]);

    expect(noFloor?.status).toBe('not run');
    expect(noPeer?.status).toBe('not run');
    expect(worker?.status).toBe('met');
    expect(others?.status).toBe('not run');
  });

  it('misses the bundle target above 224 kB, and names the floor the bundle holds', () => {
    const [over] = targets([row('worker', 90, 224_001), row(RulesFloor.worker, 90, 75_000), row(PEER, 100)]);
    const [within] = targets([row('worker', 90, 224_000), row(PEER, 100)]);

    expect(over?.status).toBe('missed');
    expect(over?.note).toContain('is 75.0 kB minified in this run');
    expect(within?.status).toBe('met');
  });

  it("names the missed bundle's parts from this run's figure 5c, and types no size of its own", () => {
    const composition: BundleComposition[] = [
      {
        name: 'worker',
        totalBytes: 230_000,
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
    const [bundle] = targets([row('worker', 90, 230_000)], composition);

    expect(bundle?.note).toBe(
      "Over the limit (figure 5c): zod/mini 40.0 kB (lib/ and the example payload schemas alike), Powertools 23.0 kB and leasefence's own lib/ 80.0 kB (the store, the worker runtime, the fenced writes) of the worker's 230.0 kB.",
    );
  });
});
