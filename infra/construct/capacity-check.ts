import { Annotations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import * as z from 'zod';
import { InvalidInputError } from '../../lib/errors.js';
import { LIMIT } from './capacity-limits.js';
import {
  assess,
  type CapacityTarget,
  type EventSourceMode,
  eventSourceCeiling,
  rampMinutes,
  workerReservationCeiling,
} from './capacity-model.js';
import { busiestPartition, type PartitionLoad, warmWriteToFit } from './capacity-partitions.js';
import type { WarmThroughputSettings, WarmUnits } from './warm-throughput.js';

/** The deployment's DynamoDB table-level quotas (L5), per table and per GSI; raised through Service Quotas. */
interface TableQuota {
  /** Default 40,000 (AWS's default). */
  readonly writeUnitsPerSecond?: number;
  /** Default 40,000 (AWS's default). */
  readonly readUnitsPerSecond?: number;
}

const rate = z.number().finite().nonnegative();
const share = rate.max(1);
const targetSchema = z.strictObject({
  jobsPerSecond: z.number().finite().positive(),
  busiestTenantJobsPerSecond: rate.optional(),
  rowsFirstShare: share.optional(),
  retryShare: rate.max(100).optional(),
  heartbeatsPerJob: rate.max(10_000).optional(),
  parksPerSecond: rate.optional(),
  inlinePayloadShare: share.optional(),
  secondsPerBatch: z.number().finite().positive().optional(),
});
const quotaSchema = z.strictObject({
  writeUnitsPerSecond: z.number().int().min(LIMIT.tableQuotaWrite).optional(),
  readUnitsPerSecond: z.number().int().min(LIMIT.tableQuotaRead).optional(),
});

function invalid(prefix: string, issues: z.core.$ZodIssue[]): InvalidInputError {
  const list = issues.map((entry) => ({ path: [prefix, ...entry.path].join('.'), message: entry.message }));
  return new InvalidInputError(list.map((entry) => `${entry.path}: ${entry.message}`).join('; '), list);
}

/** The quota the deployment declares (default AWS's 40,000 each). */
function quotaOf(quota: TableQuota | undefined): { write: number; read: number } {
  return {
    write: quota?.writeUnitsPerSecond ?? LIMIT.tableQuotaWrite,
    read: quota?.readUnitsPerSecond ?? LIMIT.tableQuotaRead,
  };
}

/** Every warm entry of the settings, named as the prop names it. */
function warmEntries(settings: WarmThroughputSettings | undefined): Array<[string, WarmUnits]> {
  const entries: Array<[string, WarmUnits | undefined]> = [
    ['warmThroughput.jobsTable', settings?.jobsTable],
    ['warmThroughput.payloadsTable', settings?.payloadsTable],
    ...Object.entries(settings?.jobsIndexes ?? {}).map(([name, units]): [string, WarmUnits | undefined] => [
      `warmThroughput.jobsIndexes.${name}`,
      units,
    ]),
  ];
  return entries.filter((entry): entry is [string, WarmUnits] => entry[1] !== undefined);
}

/**
 * Checks capacityTarget and tableQuota, and refuses warm throughput above the table-level quota (AWS warms a table
 * or GSI only up to it, L4/L5): InvalidInputError naming every offending field; nothing is built from a bad value.
 */
function checkCapacityProps(props: {
  capacityTarget?: CapacityTarget;
  tableQuota?: TableQuota;
  warmThroughput?: WarmThroughputSettings;
}): void {
  const target = props.capacityTarget === undefined ? undefined : targetSchema.safeParse(props.capacityTarget);
  if (target && !target.success) throw invalid('capacityTarget', target.error.issues);
  const quotaParsed = props.tableQuota === undefined ? undefined : quotaSchema.safeParse(props.tableQuota);
  if (quotaParsed && !quotaParsed.success) throw invalid('tableQuota', quotaParsed.error.issues);
  const quota = quotaOf(props.tableQuota);
  const over = warmEntries(props.warmThroughput).flatMap(([path, units]) => [
    ...((units.writeUnitsPerSecond ?? 0) > quota.write
      ? [
          {
            path: `${path}.writeUnitsPerSecond`,
            message: `${units.writeUnitsPerSecond} is above the table-level write quota ${quota.write} (raise “Table-level write throughput limit” in Service Quotas, then set tableQuota)`,
          },
        ]
      : []),
    ...((units.readUnitsPerSecond ?? 0) > quota.read
      ? [
          {
            path: `${path}.readUnitsPerSecond`,
            message: `${units.readUnitsPerSecond} is above the table-level read quota ${quota.read} (raise “Table-level read throughput limit” in Service Quotas, then set tableQuota)`,
          },
        ]
      : []),
  ]);
  if (over.length > 0) {
    throw new InvalidInputError(over.map((entry) => `${entry.path}: ${entry.message}`).join('; '), over);
  }
}

/** What the construct built, as the capacity check reads it. */
interface DeployedCapacity {
  readonly target: CapacityTarget | undefined;
  readonly tableQuota: TableQuota | undefined;
  readonly warmThroughput: WarmThroughputSettings | undefined;
  readonly deadlineShards: number;
  readonly eventSource: EventSourceMode;
  readonly batchSize: number;
  readonly workerReservedConcurrency: number;
  /** Reserved concurrency of the deployment's other functions (sweeper, admin, schedule tick). */
  readonly otherReservations: number;
}

const fmt = (value: number) => Math.round(value).toLocaleString('en-US');

/** One synth warning: its id (to acknowledge it with) and its message. */
interface CapacityWarning {
  readonly id: 'quota' | 'warm' | 'partitions' | 'concurrency' | 'reservation';
  readonly message: string;
}

const warn = (id: CapacityWarning['id'], message: string): CapacityWarning => ({ id, message });

/** The warnings a deployment earns: each names the resource, the limit and what to raise or set. */
function capacityWarnings(deployed: DeployedCapacity): CapacityWarning[] {
  const warnings: CapacityWarning[] = [];
  const reservationCeiling = workerReservationCeiling(deployed.otherReservations);
  if (deployed.workerReservedConcurrency > reservationCeiling) {
    warnings.push(
      warn(
        'reservation',
        `workerReservedConcurrency ${deployed.workerReservedConcurrency} is above ${reservationCeiling}, what an account with the default 1,000 concurrent executions can reserve for the worker: raise the Lambda quota “Concurrent executions” first`,
      ),
    );
  }
  if (deployed.target === undefined) return warnings;
  return [...warnings, ...targetWarnings(deployed, deployed.target)];
}

function targetWarnings(deployed: DeployedCapacity, target: CapacityTarget): CapacityWarning[] {
  const quota = quotaOf(deployed.tableQuota);
  const warm = deployed.warmThroughput;
  const warmOf = (units: WarmUnits | undefined) => units?.writeUnitsPerSecond ?? LIMIT.initialWrite;
  const parkedWarm = Math.min(warmOf(warm?.jobsIndexes?.parkedByState), warmOf(warm?.jobsIndexes?.parkedByTenant));
  const model = assess(
    target,
    { jobsTable: warmOf(warm?.jobsTable), parkedIndex: parkedWarm },
    quota.write,
    deployed.batchSize,
  );
  const { demand } = model;
  const resources: Array<[string, number, number, 'write' | 'read']> = [
    ['the jobs table', demand.jobsTable.write, warmOf(warm?.jobsTable), 'write'],
    ['the byDeadline index', demand.byDeadline.write, warmOf(warm?.jobsIndexes?.byDeadline), 'write'],
    ['each parked index', demand.parkedIndex.write, parkedWarm, 'write'],
    ['the payloads table', demand.payloadsTable.write, warmOf(warm?.payloadsTable), 'write'],
    [
      'the payloads table',
      demand.payloadsTable.read,
      warm?.payloadsTable?.readUnitsPerSecond ?? LIMIT.initialRead,
      'read',
    ],
  ];
  const warnings: CapacityWarning[] = [];
  for (const [name, units, warmed, kind] of resources) {
    const limit = kind === 'write' ? quota.write : quota.read;
    const label = kind === 'write' ? 'write' : 'read';
    if (units >= limit) {
      warnings.push(
        warn(
          'quota',
          `capacityTarget puts ${fmt(units)} ${kind === 'write' ? 'WRU' : 'RRU'}/s on ${name}, at or past its table-level ${label} quota of ${fmt(limit)} (per table and per GSI): raise “Table-level ${label} throughput limit” in Service Quotas to above ${fmt(units)}, then set tableQuota`,
        ),
      );
    } else if (units > warmed) {
      const minutes = kind === 'write' ? rampMinutes(units) : 0;
      warnings.push(
        warn(
          'warm',
          `capacityTarget puts ${fmt(units)} ${kind === 'write' ? 'WRU' : 'RRU'}/s on ${name}, above its warm throughput ${fmt(warmed)}: warm it (capacityPlanFor or warmThroughputFor) or ramp it${minutes > 0 ? ` (at least ${minutes} minutes from a new table)` : ''}`,
        ),
      );
    }
  }
  warnings.push(...partitionWarnings(deployed, model, quota.write));
  const needed = model.concurrentInvokes;
  const ceiling = eventSourceCeiling(deployed.eventSource);
  if (needed > ceiling) {
    warnings.push(
      warn(
        'concurrency',
        deployed.eventSource.mode === 'standard' && needed > LIMIT.maxConcurrencyMax
          ? `capacityTarget needs about ${fmt(needed)} concurrent worker invokes, past what standard mode gives (maxConcurrency ≤ 1,000; 1,250 without it): set provisionedPollers (maximumPollers ≥ ${Math.ceil(needed / LIMIT.invokesPerPoller)})`
          : `capacityTarget needs about ${fmt(needed)} concurrent worker invokes, above the event source’s ${fmt(ceiling)}: raise ${deployed.eventSource.mode === 'standard' ? 'maxConcurrency' : 'provisionedPollers.maximumPollers'}`,
      ),
    );
  }
  return warnings;
}

function partitionWarnings(
  deployed: DeployedCapacity,
  model: ReturnType<typeof assess>,
  quota: number,
): CapacityWarning[] {
  const warnings: CapacityWarning[] = [];
  const indexWarm = deployed.warmThroughput?.jobsIndexes?.byDeadline?.writeUnitsPerSecond;
  const index: PartitionLoad = busiestPartition({
    writeUnits: model.demand.byDeadline.write,
    keys: deployed.deadlineShards,
    ...(indexWarm !== undefined ? { warmWrite: indexWarm } : {}),
  });
  if (!index.fits) {
    const plan = model.deadlineIndex;
    warnings.push(
      warn(
        'partitions',
        `byDeadline: ${deployed.deadlineShards} shards on at least ${index.partitions} partitions put up to ${fmt(index.busiest)} WRU/s on one partition (${index.keysOnBusiest} shards co-located), past its 1,000: ${
          plan.quotaNeeded === undefined
            ? `set deadlineShards ${plan.shards} and warm byDeadline to ${fmt(plan.warmWrite ?? LIMIT.initialWrite)} WRU`
            : `no layout fits under the quota ${fmt(quota)}; raise “Table-level write throughput limit” to ${fmt(plan.quotaNeeded)} and warm byDeadline to it with ${plan.shards} shards`
        } (docs/SCALE.md, "Partitions, not keys")`,
      ),
    );
  }
  for (const [name, load, units, keys] of [
    [
      `the jobs table’s ${fmt(model.demand.tableKeys)} tenant keys`,
      model.tableKeys,
      model.demand.jobsTable.write,
      model.demand.tableKeys,
    ],
    ['one parked state’s 16 keys in each parked index', model.parkedKeys, model.demand.parkedIndex.write, 16],
  ] as const) {
    if (load.fits) continue;
    const fit = warmWriteToFit(units, keys, quota);
    warnings.push(
      warn(
        'partitions',
        `${name} put up to ${fmt(load.busiest)} WRU/s on one partition (${load.keysOnBusiest} keys co-located on at least ${load.partitions} partitions): ${
          fit === undefined
            ? `no warm throughput under the quota ${fmt(quota)} spreads them; lower the rate or raise the quota`
            : `warm it to ${fmt(fit)} WRU`
        } (docs/SCALE.md, "Partitions, not keys")`,
      ),
    );
  }
  return warnings;
}

/** Adds the capacity warnings to the construct (cdk synth prints them; `--strict` fails on them). */
function annotateCapacity(scope: IConstruct, deployed: DeployedCapacity): void {
  for (const warning of capacityWarnings(deployed)) {
    Annotations.of(scope).addWarningV2(`@leasefence/capacity-${warning.id}`, warning.message);
  }
}

export {
  annotateCapacity,
  type CapacityWarning,
  capacityWarnings,
  checkCapacityProps,
  type DeployedCapacity,
  quotaOf,
  type TableQuota,
};
