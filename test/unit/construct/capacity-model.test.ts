import { describe, expect, it } from 'vitest';
import { LIMIT } from '../../../infra/construct/capacity-limits.js';
import {
  assess,
  demandOf,
  eventSourceCeiling,
  inFlight,
  noisyTenantThreshold,
  rampMinutes,
  workerReservationCeiling,
} from '../../../infra/construct/capacity-model.js';
import {
  busiestPartition,
  keysOnBusiestPartition,
  partitionsServing,
  planDeadlineIndex,
  RISK,
} from '../../../infra/construct/capacity-partitions.js';
import { capacityPlanFor } from '../../../infra/construct/capacity-plan.js';

/** A seeded generator (mulberry32): layouts are drawn the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Layouts (of `trials`) in which hashing `keys` keys onto `partitions` puts more than `bound` keys on one partition. */
function layoutsOver(keys: number, partitions: number, bound: number, trials: number, seed = 45): number {
  const next = random(seed);
  let over = 0;
  for (let trial = 0; trial < trials; trial++) {
    const counts = new Array<number>(partitions).fill(0);
    for (let key = 0; key < keys; key++) {
      const partition = Math.floor(next() * partitions);
      counts[partition] = (counts[partition] ?? 0) + 1;
    }
    if (Math.max(...counts) > bound) over += 1;
  }
  return over;
}

describe('capacity model: partitions, not keys (docs/SCALE.md, "Partitions, not keys")', () => {
  it('two 625-WRU deadline shards on one partition pass its 1,000: 32 shards cannot fit 20 partitions, warm or not', () => {
    // 10,000 immediate jobs/s put 20,000 WRU on byDeadline; warmed to exactly that it has at least 20 partitions.
    const load = busiestPartition({ writeUnits: 20_000, keys: 32, warmWrite: 20_000 });
    expect(load.partitions).toBe(20);
    // Pigeonhole: 32 keys on 20 partitions put at least 2 on one, so at least 1,250 WRU on it.
    expect(load.keysOnBusiest).toBeGreaterThanOrEqual(2);
    expect(load.busiest).toBeGreaterThan(LIMIT.partitionWrite);
    expect(load.fits).toBe(false);
  });

  it('bounds the keys on the busiest partition so that random layouts exceed it in about RISK of cases, not more', () => {
    for (const [keys, partitions] of [
      [1_000, 33],
      [16, 5],
      [160, 40],
    ] as const) {
      const bound = keysOnBusiestPartition(keys, partitions);
      // The bound is no looser than needed: one key fewer is exceeded far more often than RISK.
      expect(layoutsOver(keys, partitions, bound, 2_000)).toBeLessThanOrEqual(2_000 * RISK * 2);
      expect(layoutsOver(keys, partitions, bound - 2, 2_000)).toBeGreaterThan(2_000 * RISK * 2);
    }
  });

  it('never puts more keys on the busiest partition when there are more partitions (the planner searches on it)', () => {
    for (const keys of [16, 160, 1_000]) {
      let previous = Number.POSITIVE_INFINITY;
      for (let partitions = 4; partitions <= 200; partitions++) {
        const bound = keysOnBusiestPartition(keys, partitions);
        expect(bound, `${keys} keys on ${partitions} partitions`).toBeLessThanOrEqual(previous);
        previous = bound;
      }
    }
  });

  it('plans the deadline index so the busiest partition stays within 1,000 WRU, and names the quota when none fits', () => {
    const plan = planDeadlineIndex(20_000);
    expect(plan.quotaNeeded).toBeUndefined();
    expect(plan.warmWrite).toBeLessThanOrEqual(LIMIT.tableQuotaWrite);
    expect(plan.load.busiest).toBeLessThanOrEqual(LIMIT.partitionWrite);
    // The plan's layout, checked against random layouts: at most RISK of them pass 1,000 WRU on a partition.
    const partitions = partitionsServing(plan.warmWrite ?? 0);
    const perShard = 20_000 / plan.shards;
    expect(
      layoutsOver(plan.shards, partitions, Math.floor(LIMIT.partitionWrite / perShard), 1_000),
    ).toBeLessThanOrEqual(1_000 * RISK * 2);
    // A provider outage (each job retried once) puts 60,000 WRU on the index: no layout fits the default quota.
    const outage = planDeadlineIndex(demandOf({ jobsPerSecond: 10_000, retryShare: 1 }).byDeadline.write);
    expect(outage.quotaNeeded).toBeGreaterThan(LIMIT.tableQuotaWrite);
  });

  it('sizes warm throughput and shards for a target under the partition rule (capacityPlanFor)', () => {
    const plan = capacityPlanFor({ jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 100 });
    const index = plan.props.warmThroughput.jobsIndexes?.byDeadline?.writeUnitsPerSecond ?? 0;
    expect(busiestPartition({ writeUnits: 20_000, keys: plan.props.deadlineShards, warmWrite: index }).fits).toBe(true);
    const table = plan.props.warmThroughput.jobsTable?.writeUnitsPerSecond ?? 0;
    expect(busiestPartition({ writeUnits: 20_000, keys: 100 * 16, warmWrite: table }).fits).toBe(true);
    expect(plan.quotaNeeded).toEqual({});
    // One tenant at 1,000 jobs/s: its 16 keys on a new table's 4 partitions may pass 1,000; warming spreads them.
    expect(busiestPartition({ writeUnits: 2_000, keys: 16 }).fits).toBe(false);
    const tenant = capacityPlanFor({ jobsPerSecond: 1_000 }).props.warmThroughput.jobsTable?.writeUnitsPerSecond;
    expect(busiestPartition({ writeUnits: 2_000, keys: 16, warmWrite: tenant ?? 0 }).fits).toBe(true);
  });
});

describe('capacity model: quotas, ramp, event source (docs/SCALE.md)', () => {
  it('puts the deadline index at the 40,000 quota for 10,000 rows-first jobs/s, and both table and index past it in an outage', () => {
    expect(demandOf({ jobsPerSecond: 10_000, rowsFirstShare: 1 }).byDeadline.write).toBe(40_000);
    const outage = demandOf({ jobsPerSecond: 10_000, retryShare: 1 });
    expect(outage.jobsTable.write).toBe(40_000);
    expect(outage.byDeadline.write).toBe(60_000);
  });

  it('ramps a cold table by doubling every 30 minutes from 4,000: 90 minutes to 20,000, 120 past 32,000', () => {
    expect(rampMinutes(4_000)).toBe(0);
    expect(rampMinutes(8_000)).toBe(30);
    expect(rampMinutes(20_000)).toBe(90);
    expect(rampMinutes(32_000)).toBe(90);
    expect(rampMinutes(32_001)).toBe(120);
  });

  it('gives standard mode at most 1,250 invokes and provisioned mode 10 per poller', () => {
    expect(eventSourceCeiling({ mode: 'standard', maxConcurrency: 1_000 })).toBe(1_000);
    expect(eventSourceCeiling({ mode: 'provisioned', minimumPollers: 2, maximumPollers: 200 })).toBe(2_000);
    expect(assess({ jobsPerSecond: 100_000 }).concurrentInvokes).toBe(1_500);
  });

  it('leaves the worker 889 reservable on a default account once the schedule tick’s 5 are counted', () => {
    expect(workerReservationCeiling(1 + 5 + 5)).toBe(889);
  });

  it('estimates in-flight messages and the fair-queue noisy-tenant threshold', () => {
    expect(inFlight({ deliveriesPerSecond: 10_000, windowSeconds: 1, secondsPerBatch: 0.2 })).toBe(12_000);
    expect(
      inFlight({
        deliveriesPerSecond: 10_000,
        windowSeconds: 1,
        secondsPerBatch: 0.2,
        failedPerSecond: 300,
        visibilitySeconds: 361,
      }),
    ).toBe(120_300);
    // More than 10 % of the queue's in-flight messages, and at least 30 of its own.
    expect(noisyTenantThreshold(12_000)).toBe(1_201);
    expect(noisyTenantThreshold(100)).toBe(30);
  });
});
