import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { median, medianInterval, pairedRatio, pairedRatios } from '../../bench/support/stats.js';

describe('bench statistics: paired ratios and the interval of a median', () => {
  it('pairs samples round by round, and refuses a peer sample that is not positive', () => {
    expect(pairedRatios([110, 220, 300], [100, 200, 300, 400])).toEqual([1.1, 1.1, 1]);
    expect(pairedRatio([110, 220, 300], [100, 200, 300])).toBeCloseTo(1.1);
    expect(pairedRatios([1], [0])).toBeUndefined();
    expect(pairedRatios([], [])).toBeUndefined();
  });

  it('gives the order statistics around the median: 61 samples 1..61 → the 23rd and 39th', () => {
    const values = Array.from({ length: 61 }, (_, index) => 61 - index);

    expect(medianInterval(values)).toEqual({ low: 23, high: 39 });
  });

  it('gives the whole range for too few samples, and NaN for none', () => {
    expect(medianInterval([3, 1, 2])).toEqual({ low: 1, high: 3 });
    const empty = medianInterval([]);
    expect(Number.isNaN(empty.low) && Number.isNaN(empty.high)).toBe(true);
  });

  it('always holds the median, within the samples', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 1, maxLength: 120 }),
        (values) => {
          const { low, high } = medianInterval(values);
          const middle = median(values);
          expect(low).toBeLessThanOrEqual(middle);
          expect(high).toBeGreaterThanOrEqual(middle);
          expect(low).toBeGreaterThanOrEqual(Math.min(...values));
          expect(high).toBeLessThanOrEqual(Math.max(...values));
        },
      ),
    );
  });

  it('covers the true median of a known distribution about 95 % of the time', () => {
    // Deterministic pseudo-random samples (a linear congruential generator) of a uniform 0–1 variable: true median 0.5.
    let seed = 12_345;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let covered = 0;
    const trials = 2_000;
    for (let trial = 0; trial < trials; trial += 1) {
      const { low, high } = medianInterval(Array.from({ length: 61 }, next));
      if (low <= 0.5 && 0.5 <= high) covered += 1;
    }
    expect(covered / trials).toBeGreaterThan(0.93);
    expect(covered / trials).toBeLessThan(0.99);
  });
});
