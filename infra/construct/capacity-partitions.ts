import { LIMIT } from './capacity-limits.js';

/**
 * Partitions, not keys (docs/SCALE.md, "Partitions, not keys"). DynamoDB places a key on a partition by an internal
 * hash (L1) that nobody chooses, so any two keys may share a partition, and a partition serves 1,000 WRU whatever
 * the table's warm throughput. The model therefore bounds the keys one partition may hold: `keys` equally loaded
 * keys hashed into `partitions`, and the fewest partitions a table or index can have while serving its warm
 * throughput (each partition at most 1,000 WRU and 3,000 RRU; never fewer than a new table's, L3). The bound is the
 * smallest m with partitions × P[Binomial(keys, 1/partitions) > m] ≤ RISK (a union bound over partitions): the
 * busiest partition holds more than m keys in at most 1 layout in 100.
 */
const RISK = 0.01;

/** The fewest partitions that serve `writeUnits` WRU and `readUnits` RRU per second (L1), at least a new table's (L3). */
function partitionsServing(writeUnits: number, readUnits = 0): number {
  const floor = Math.max(LIMIT.initialWrite / LIMIT.partitionWrite, LIMIT.initialRead / LIMIT.partitionRead);
  return Math.max(Math.ceil(writeUnits / LIMIT.partitionWrite), Math.ceil(readUnits / LIMIT.partitionRead), floor);
}

/** P[Binomial(n, p) > m], summed in log space (n up to a few thousand keys). */
function binomialTailAbove(n: number, p: number, m: number): number {
  if (m >= n) return 0;
  if (p >= 1) return 1;
  let logTerm = n * Math.log1p(-p); // k = 0
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    if (k > m) sum += Math.exp(logTerm);
    logTerm += Math.log((n - k) / (k + 1)) + Math.log(p) - Math.log1p(-p);
  }
  return Math.min(1, sum);
}

/** The most keys the busiest partition holds (at RISK) when `keys` keys are hashed into `partitions`. */
function keysOnBusiestPartition(keys: number, partitions: number): number {
  if (partitions <= 1 || keys <= 1) return keys;
  // Pigeonhole: some partition holds at least ceil(keys / partitions); search upwards from there.
  for (let m = Math.ceil(keys / partitions); m < keys; m++) {
    if (partitions * binomialTailAbove(keys, 1 / partitions, m) <= RISK) return m;
  }
  return keys;
}

/** One resource's keys: `writeUnits` WRU per second spread evenly over `keys` keys, warmed to `warmWrite`. */
interface KeyLayout {
  readonly writeUnits: number;
  readonly keys: number;
  /** The resource's warm write throughput (default: a new table's, L3). */
  readonly warmWrite?: number;
}

/** What the busiest partition of a layout takes, and whether it fits under one partition's 1,000 WRU. */
interface PartitionLoad {
  readonly partitions: number;
  readonly keysOnBusiest: number;
  /** WRU per second on the busiest partition. */
  readonly busiest: number;
  readonly fits: boolean;
}

/** The busiest partition of a layout (see the module comment for the rule and its risk). */
function busiestPartition(layout: KeyLayout): PartitionLoad {
  const partitions = partitionsServing(Math.max(layout.warmWrite ?? 0, layout.writeUnits));
  const keysOnBusiest = keysOnBusiestPartition(layout.keys, partitions);
  const busiest = Math.ceil((keysOnBusiest * layout.writeUnits) / layout.keys);
  return { partitions, keysOnBusiest, busiest, fits: busiest <= LIMIT.partitionWrite };
}

/**
 * The least warm write throughput (a multiple of 1,000, from the demand up to `ceiling`) at which a layout fits.
 * More partitions never put more keys on the busiest one, so the search halves the range each step.
 */
function warmWriteToFit(writeUnits: number, keys: number, ceiling: number): number | undefined {
  const fits = (thousands: number) => busiestPartition({ writeUnits, keys, warmWrite: thousands * 1_000 }).fits;
  let low = Math.max(Math.ceil(writeUnits / 1_000), LIMIT.initialWrite / 1_000);
  let high = Math.floor(ceiling / 1_000);
  if (low > high || !fits(high)) return undefined;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) high = middle;
    else low = middle + 1;
  }
  return low * 1_000;
}

/** Deadline shard counts the planner tries, fewest first (the sweeper reads one Query per shard per run). */
const SHARD_STEPS: readonly number[] = [32, 64, 128, 256, 512, 1_000];

/** How to lay out the deadline index for a write rate: shards and warm throughput, or the quota it needs. */
interface IndexPlan {
  readonly shards: number;
  /** Warm write throughput to set (undefined: a new index's own serves it). */
  readonly warmWrite: number | undefined;
  readonly load: PartitionLoad;
  /** Set when no layout fits under `quota`: the warm throughput (and so the quota) the index needs. */
  readonly quotaNeeded?: number;
}

/**
 * The deadline index's layout for `writeUnits` WRU per second under a table-level `quota`: the least warm
 * throughput at which some shard count keeps the busiest partition within 1,000 WRU, then the fewest shards at it.
 * When none fits under the quota, the plan names the quota needed (searched up to ten times the quota).
 */
function planDeadlineIndex(writeUnits: number, quota: number = LIMIT.tableQuotaWrite): IndexPlan {
  const fitted = (ceiling: number) =>
    SHARD_STEPS.map((shards) => ({ shards, warm: warmWriteToFit(writeUnits, shards, ceiling) }))
      .filter((entry): entry is { shards: number; warm: number } => entry.warm !== undefined)
      .sort((a, b) => a.warm - b.warm || a.shards - b.shards)[0];
  const within = fitted(quota);
  const chosen = within ?? fitted(quota * 10) ?? { shards: SHARD_STEPS.at(-1) ?? 1_000, warm: quota * 10 };
  const warmWrite = chosen.warm > LIMIT.initialWrite ? chosen.warm : undefined;
  const load = busiestPartition({ writeUnits, keys: chosen.shards, warmWrite: chosen.warm });
  return { shards: chosen.shards, warmWrite, load, ...(within ? {} : { quotaNeeded: chosen.warm }) };
}

export {
  busiestPartition,
  type IndexPlan,
  type KeyLayout,
  keysOnBusiestPartition,
  type PartitionLoad,
  partitionsServing,
  planDeadlineIndex,
  RISK,
  SHARD_STEPS,
  warmWriteToFit,
};
