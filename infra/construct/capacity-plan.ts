import { LIMIT } from './capacity-limits.js';
import { type CapacityTarget, demandOf } from './capacity-model.js';
import { planDeadlineIndex, warmWriteToFit } from './capacity-partitions.js';
import type { JobsIndexName, WarmThroughputSettings, WarmUnits } from './warm-throughput.js';

/** The props a capacity target calls for, and what no setting under the quota can give it. */
interface CapacityPlan {
  /** FencedJobQueue props: spread them into the construct's. */
  readonly props: { readonly warmThroughput: WarmThroughputSettings; readonly deadlineShards: number };
  /** Resources whose partition rule needs more than the quota: name → the warm throughput (and quota) needed. */
  readonly quotaNeeded: Readonly<Record<string, number>>;
}

/** Warm write units that fit `keys` under the partition rule, capped at the quota (the excess reported). */
function fitted(
  name: string,
  writeUnits: number,
  keys: number,
  quota: number,
  short: Record<string, number>,
): number | undefined {
  if (writeUnits <= 0) return undefined;
  const warm = warmWriteToFit(writeUnits, keys, quota);
  if (warm === undefined) {
    short[name] = warmWriteToFit(writeUnits, keys, quota * 10) ?? quota * 10;
    return quota;
  }
  return warm > LIMIT.initialWrite ? warm : undefined;
}

const units = (write: number | undefined): WarmUnits | undefined =>
  write === undefined ? undefined : { writeUnitsPerSecond: write };

/**
 * Warm throughput and deadline shards for a target under the partition rule (docs/SCALE.md, "Partitions, not
 * keys"): each table and index warmed to the least throughput at which its keys, hashed onto partitions, keep the
 * busiest partition within 1,000 WRU; never above `quota` (the table-level quota, default 40,000), and what would
 * need more is listed in `quotaNeeded`. Pass `capacityTarget` too, so synth checks the deployment against it.
 * @example
 * const target = { jobsPerSecond: 10_000, busiestTenantJobsPerSecond: 100 };
 * new FencedJobQueue(this, 'Jobs', { workerEntry, capacityTarget: target, ...capacityPlanFor(target).props });
 */
function capacityPlanFor(target: CapacityTarget, quota: number = LIMIT.tableQuotaWrite): CapacityPlan {
  const demand = demandOf(target);
  const short: Record<string, number> = {};
  const index = planDeadlineIndex(demand.byDeadline.write, quota);
  if (index.quotaNeeded !== undefined) short.byDeadline = index.quotaNeeded;
  const indexWarm = index.quotaNeeded !== undefined ? quota : index.warmWrite;
  const parked = units(fitted('parked indexes', demand.parkedIndex.write, 16, quota, short));
  const jobsIndexes: Partial<Record<JobsIndexName, WarmUnits>> = {
    ...(indexWarm !== undefined ? { byDeadline: { writeUnitsPerSecond: indexWarm } } : {}),
    ...(parked ? { parkedByState: parked, parkedByTenant: parked } : {}),
  };
  const jobsTable = units(fitted('jobs table', demand.jobsTable.write, demand.tableKeys, quota, short));
  const payloadWrite = fitted('payloads table', demand.payloadsTable.write, demand.tableKeys, quota, short);
  const payloadRead =
    demand.payloadsTable.read > LIMIT.initialRead ? Math.ceil(demand.payloadsTable.read / 1_000) * 1_000 : undefined;
  const payloadsTable: WarmUnits | undefined =
    payloadWrite === undefined && payloadRead === undefined
      ? undefined
      : {
          ...(payloadRead !== undefined ? { readUnitsPerSecond: payloadRead } : {}),
          ...(payloadWrite !== undefined ? { writeUnitsPerSecond: payloadWrite } : {}),
        };
  const warmThroughput: WarmThroughputSettings = {
    ...(jobsTable ? { jobsTable } : {}),
    ...(Object.keys(jobsIndexes).length > 0 ? { jobsIndexes } : {}),
    ...(payloadsTable ? { payloadsTable } : {}),
  };
  return { props: { warmThroughput, deadlineShards: index.shards }, quotaNeeded: short };
}

export { type CapacityPlan, capacityPlanFor };
