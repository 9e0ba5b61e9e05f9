import { TENANT_BUCKETS } from '../../lib/store/index.js';
import { LIMIT } from './capacity-limits.js';
import { busiestPartition, type IndexPlan, type PartitionLoad, planDeadlineIndex } from './capacity-partitions.js';
import { WRITE_UNITS } from './warm-throughput.js';

/**
 * The capacity model (docs/SCALE.md is generated from it): what a declared target puts on each table and index,
 * against AWS's documented limits (capacity-limits.ts). Pure arithmetic; the construct checks a deployment's
 * `capacityTarget` with it at synth (capacity-check.ts).
 */

/** A deployment's declared peak, per second. Rows ≤ 1 KB and inline bodies ≤ 1 KB, as BENCHMARKS.md figure 7 measures. */
interface CapacityTarget {
  /** Jobs started per second, across tenants. */
  readonly jobsPerSecond: number;
  /** The busiest tenant's jobs per second (its 16 keys). Default jobsPerSecond: one tenant, the safe side. */
  readonly busiestTenantJobsPerSecond?: number;
  /** Share (0..1) of jobs written rows-first: delayed, confirm-first, successors. Default 0. */
  readonly rowsFirstShare?: number;
  /** Retries per job (1 = every job retried once, a provider outage). Default 0. */
  readonly retryShare?: number;
  /** Heartbeats per job (a job running n lease thirds heartbeats n − 1 times). Default 0. */
  readonly heartbeatsPerJob?: number;
  /** Jobs parked per second, all in one state (an outage parking every job). Default 0. */
  readonly parksPerSecond?: number;
  /** Share (0..1) of jobs with an inline payload. Default 0. */
  readonly inlinePayloadShare?: number;
  /** Seconds one batch of `batchSize` records runs (docs/SCALE.md, "Lambda sizing"). Default 0.15. */
  readonly secondsPerBatch?: number;
}

/** Write (and read) units per second on one table or index. */
interface Units {
  readonly write: number;
  readonly read: number;
}

/** What a target puts on each resource; the parked figure is per parked index (each takes every park). */
interface Demand {
  readonly jobsTable: Units;
  readonly byDeadline: Units;
  readonly parkedIndex: Units;
  readonly payloadsTable: Units;
  /**
   * The jobs table's keys, for the partition rule: the fewest tenants that make the rate at the busiest tenant's
   * (the safe side: fewer, hotter keys collide worse), TENANT_BUCKETS keys each.
   */
  readonly tableKeys: number;
}

const DEFAULT_SECONDS_PER_BATCH = 0.15;

/** Per-path rates of a target. */
function rates(target: CapacityTarget) {
  const rowsFirst = target.jobsPerSecond * (target.rowsFirstShare ?? 0);
  return {
    immediate: target.jobsPerSecond - rowsFirst,
    rowsFirst,
    retries: target.jobsPerSecond * (target.retryShare ?? 0),
    heartbeats: target.jobsPerSecond * (target.heartbeatsPerJob ?? 0),
  };
}

/** Write units per job, on the table and the deadline index, for the target's mix of paths (WRITE_UNITS). */
function writesOf(target: CapacityTarget, path: 'table' | 'deadlineIndex'): number {
  const rate = rates(target);
  return (
    rate.immediate * WRITE_UNITS.immediate[path] +
    rate.rowsFirst * WRITE_UNITS.rowsFirst[path] +
    rate.retries * WRITE_UNITS.retry[path] +
    rate.heartbeats * WRITE_UNITS.heartbeat[path]
  );
}

/** The units per second a target puts on each table and index. */
function demandOf(target: CapacityTarget): Demand {
  const inline = target.jobsPerSecond * (target.inlinePayloadShare ?? 0);
  const table = writesOf(target, 'table');
  const busiest = Math.min(target.jobsPerSecond, target.busiestTenantJobsPerSecond ?? target.jobsPerSecond);
  const tenants = busiest > 0 ? Math.ceil(target.jobsPerSecond / busiest) : 1;
  return {
    jobsTable: { write: table, read: 0 },
    byDeadline: { write: writesOf(target, 'deadlineIndex'), read: 0 },
    parkedIndex: { write: (target.parksPerSecond ?? 0) * WRITE_UNITS.park.parkedIndex, read: 0 },
    payloadsTable: { write: inline, read: inline },
    tableKeys: tenants * TENANT_BUCKETS,
  };
}

/** Minutes a cold on-demand table or index needs to reach `units` (×2 per 30 minutes from 4,000, L3). */
function rampMinutes(units: number, initial: number = LIMIT.initialWrite): number {
  if (units <= initial) return 0;
  return Math.ceil(Math.log2(units / initial)) * LIMIT.rampMinutes;
}

/** Concurrent worker invocations a target needs: batches per second × seconds per batch. */
function concurrentInvokes(target: CapacityTarget, batchSize = 10): number {
  return Math.ceil((target.jobsPerSecond / batchSize) * (target.secondsPerBatch ?? DEFAULT_SECONDS_PER_BATCH));
}

/** The event source's two modes (L7, L8): AWS refuses maximum concurrency together with provisioned pollers. */
type EventSourceMode =
  | { readonly mode: 'standard'; readonly maxConcurrency: number }
  | { readonly mode: 'provisioned'; readonly minimumPollers: number; readonly maximumPollers: number };

/** The most concurrent invokes the event source makes in a mode. */
function eventSourceCeiling(source: EventSourceMode): number {
  return source.mode === 'standard'
    ? Math.min(source.maxConcurrency, LIMIT.standardMaxInvokes)
    : source.maximumPollers * LIMIT.invokesPerPoller;
}

/** The most reserved concurrency the worker may take on an account: unreserved − 100 − the other functions' (L9). */
function workerReservationCeiling(otherReservations: number, accountConcurrency: number = LIMIT.accountConcurrency) {
  return accountConcurrency - LIMIT.unreservedFloor - otherReservations;
}

/**
 * Messages in flight (L6): deliveries × (batching window + batch run) + failed records × visibility timeout. A full
 * batch invokes without waiting out the window, so at high rates the window term overstates: the safe side.
 */
function inFlight(input: {
  deliveriesPerSecond: number;
  windowSeconds: number;
  secondsPerBatch: number;
  failedPerSecond?: number;
  visibilitySeconds?: number;
}): number {
  const running = input.deliveriesPerSecond * (input.windowSeconds + input.secondsPerBatch);
  return Math.round(running + (input.failedPerSecond ?? 0) * (input.visibilitySeconds ?? 0));
}

/** In-flight messages above which one tenant counts as a noisy neighbour on a fair queue (L11). */
function noisyTenantThreshold(queueInFlight: number): number {
  return Math.max(LIMIT.fairMinimumInFlight, Math.floor(queueInFlight * LIMIT.fairShare) + 1);
}

/** The model's verdict on one target: demand, what it takes, per resource. */
interface Assessment {
  readonly demand: Demand;
  /** Minutes a cold table needs to ramp to the target (jobs table and deadline index alike, L3). */
  readonly rampMinutes: { readonly jobsTable: number; readonly byDeadline: number };
  readonly deadlineIndex: IndexPlan;
  /** The jobs table's tenant keys (Demand.tableKeys) on the busiest partition, at the table's warm throughput. */
  readonly tableKeys: PartitionLoad;
  /** One parked state's 16 keys in each parked index, at its warm throughput. */
  readonly parkedKeys: PartitionLoad;
  readonly concurrentInvokes: number;
}

/** Warm write throughput per resource, as the deployment sets it (undefined: a new table's own, L3). */
interface DeployedWarm {
  readonly jobsTable?: number;
  readonly parkedIndex?: number;
}

/** Assesses a target against the limits (the default quota unless `quota` says the deployment's raised one). */
function assess(
  target: CapacityTarget,
  warm: DeployedWarm = {},
  quota: number = LIMIT.tableQuotaWrite,
  batchSize = 10,
): Assessment {
  const demand = demandOf(target);
  return {
    demand,
    rampMinutes: { jobsTable: rampMinutes(demand.jobsTable.write), byDeadline: rampMinutes(demand.byDeadline.write) },
    deadlineIndex: planDeadlineIndex(demand.byDeadline.write, quota),
    tableKeys: busiestPartition({
      writeUnits: demand.jobsTable.write,
      keys: demand.tableKeys,
      warmWrite: Math.max(warm.jobsTable ?? 0, demand.jobsTable.write),
    }),
    parkedKeys: busiestPartition({
      writeUnits: demand.parkedIndex.write,
      keys: TENANT_BUCKETS,
      warmWrite: Math.max(warm.parkedIndex ?? 0, demand.parkedIndex.write),
    }),
    concurrentInvokes: concurrentInvokes(target, batchSize),
  };
}

export {
  type Assessment,
  assess,
  type CapacityTarget,
  concurrentInvokes,
  DEFAULT_SECONDS_PER_BATCH,
  type Demand,
  type DeployedWarm,
  demandOf,
  type EventSourceMode,
  eventSourceCeiling,
  inFlight,
  noisyTenantThreshold,
  rampMinutes,
  type Units,
  workerReservationCeiling,
};
