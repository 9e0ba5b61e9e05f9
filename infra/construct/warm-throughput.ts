import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as z from 'zod';
import { JobsIndex } from '../../lib/store/index.js';
import { LIMIT } from './capacity-limits.js';

/**
 * What a new on-demand table, and each new GSI, serves at once without a ramp (docs/SCALE.md, "The ramp"):
 * a warm throughput at or below it changes nothing, so the construct refuses it as a mistake.
 */
const ON_DEMAND_INITIAL = { readUnitsPerSecond: LIMIT.initialRead, writeUnitsPerSecond: LIMIT.initialWrite } as const;

/** Warm throughput of one table or index: the request units per second it serves from the first second. */
interface WarmUnits {
  /** Read request units per second (at least 12,000, a new on-demand table's own). */
  readonly readUnitsPerSecond?: number;
  /** Write request units per second (at least 4,000, a new on-demand table's own). */
  readonly writeUnitsPerSecond?: number;
}

/** The jobs table's global secondary indexes, by name. */
type JobsIndexName = (typeof JobsIndex)[keyof typeof JobsIndex]['name'];

/**
 * Warm throughput per table and per index (each is warmed separately: a warm table does not warm its indexes,
 * and an index that throttles writes throttles the table's writes too). Values per target: docs/SCALE.md.
 */
interface WarmThroughputSettings {
  readonly jobsTable?: WarmUnits;
  /** Per index of the jobs table: `byDeadline` is written by every job, the parked ones by every park. */
  readonly jobsIndexes?: Partial<Record<JobsIndexName, WarmUnits>>;
  readonly payloadsTable?: WarmUnits;
}

const units = (name: string, minimum: number) =>
  z
    .number()
    .int(`${name} must be an integer`)
    .min(
      minimum + 1,
      `${name} must exceed ${minimum.toLocaleString('en-US')}, what a new on-demand table serves anyway`,
    )
    .optional();

const warmUnitsSchema = z
  .strictObject({
    readUnitsPerSecond: units('readUnitsPerSecond', ON_DEMAND_INITIAL.readUnitsPerSecond),
    writeUnitsPerSecond: units('writeUnitsPerSecond', ON_DEMAND_INITIAL.writeUnitsPerSecond),
  })
  .refine((value) => value.readUnitsPerSecond !== undefined || value.writeUnitsPerSecond !== undefined, {
    message: 'set readUnitsPerSecond, writeUnitsPerSecond or both',
  });

const indexNames = Object.values(JobsIndex).map((index) => index.name) as [JobsIndexName, ...JobsIndexName[]];

const warmThroughputSchema = z.strictObject({
  jobsTable: warmUnitsSchema.optional(),
  jobsIndexes: z.partialRecord(z.enum(indexNames), warmUnitsSchema).optional(),
  payloadsTable: warmUnitsSchema.optional(),
});

/**
 * Checks a warmThroughput prop: known tables and indexes only, integers above the on-demand initial throughput.
 * Throws one Error naming every bad field (nothing is built from a bad value).
 */
function checkWarmThroughput(settings: WarmThroughputSettings | undefined): void {
  if (settings === undefined) return;
  const parsed = warmThroughputSchema.safeParse(settings);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${['warmThroughput', ...issue.path].join('.')}: ${issue.message}`,
    );
    throw new Error(issues.join('; '));
  }
}

/**
 * Write units per second each path puts on the jobs table and on the deadline index, per job (capacity
 * accountant, BENCHMARKS.md figure 7; asserted in test/integration/bench/capacity.test.ts): an immediate job
 * creates its row claimed and completes it; a rows-first job (delayed, confirm-first, a successor) writes its
 * queued row first, then a claim moves its index key; a retry queues the row again and its wake-up re-claims it.
 */
const WRITE_UNITS = {
  immediate: { table: 2, deadlineIndex: 2 },
  rowsFirst: { table: 3, deadlineIndex: 4 },
  retry: { table: 2, deadlineIndex: 4 },
  heartbeat: { table: 1, deadlineIndex: 0 },
  park: { table: 0, parkedIndex: 1 },
} as const;

/** A launch rate to warm for (per second; rows ≤ 1 KB, bodies ≤ 1 KB, as figure 7 measures). */
interface WarmTarget {
  /** Jobs sent for immediate run. */
  readonly jobsPerSecond: number;
  /** Jobs whose row is written first: delayed, confirm-first, successors. Default 0. */
  readonly rowsFirstPerSecond?: number;
  /** Retries (failed attempts with attempts left). Default 0. */
  readonly retriesPerSecond?: number;
  /** Heartbeats per job (a job running n lease thirds heartbeats n − 1 times). Default 0. */
  readonly heartbeatsPerJob?: number;
  /** Jobs parked at once (an outage parking every job as unknown). Default 0. */
  readonly parksPerSecond?: number;
  /** Jobs with an inline payload (one write by the producer, one strongly consistent read by the worker). Default 0. */
  readonly inlinePayloadsPerSecond?: number;
}

/** Up to the next thousand, or undefined where DynamoDB's own initial throughput already serves it. */
function above(units: number, initial: number): number | undefined {
  return units > initial ? Math.ceil(units / 1000) * 1000 : undefined;
}

function entry(write: number, read = 0): WarmUnits | undefined {
  const writeUnitsPerSecond = above(write, ON_DEMAND_INITIAL.writeUnitsPerSecond);
  const readUnitsPerSecond = above(read, ON_DEMAND_INITIAL.readUnitsPerSecond);
  if (writeUnitsPerSecond === undefined && readUnitsPerSecond === undefined) return undefined;
  return {
    ...(readUnitsPerSecond !== undefined ? { readUnitsPerSecond } : {}),
    ...(writeUnitsPerSecond !== undefined ? { writeUnitsPerSecond } : {}),
  };
}

/**
 * The warmThroughput prop for a launch rate: each table and index warmed to the write (and read) units the
 * target puts on it, rounded up to a thousand; entries a new on-demand table serves anyway are left out. No
 * headroom is added, and hashed keys may still meet on one partition: capacityPlanFor sizes for that too.
 * @example
 * new FencedJobQueue(this, 'Jobs', { workerEntry, warmThroughput: warmThroughputFor({ jobsPerSecond: 10_000 }) });
 */
function warmThroughputFor(target: WarmTarget): WarmThroughputSettings {
  const rowsFirst = target.rowsFirstPerSecond ?? 0;
  const retries = target.retriesPerSecond ?? 0;
  const heartbeats = target.jobsPerSecond * (target.heartbeatsPerJob ?? 0);
  const parks = target.parksPerSecond ?? 0;
  const inline = target.inlinePayloadsPerSecond ?? 0;
  const per = (path: 'table' | 'deadlineIndex') =>
    target.jobsPerSecond * WRITE_UNITS.immediate[path] +
    rowsFirst * WRITE_UNITS.rowsFirst[path] +
    retries * WRITE_UNITS.retry[path] +
    heartbeats * WRITE_UNITS.heartbeat[path];
  const jobsTable = entry(per('table'));
  const byDeadline = entry(per('deadlineIndex'));
  const parked = entry(parks * WRITE_UNITS.park.parkedIndex);
  const payloadsTable = entry(inline, inline);
  const jobsIndexes: Partial<Record<JobsIndexName, WarmUnits>> = {
    ...(byDeadline ? { byDeadline } : {}),
    ...(parked ? { parkedByState: parked, parkedByTenant: parked } : {}),
  };
  const settings: WarmThroughputSettings = {
    ...(jobsTable ? { jobsTable } : {}),
    ...(Object.keys(jobsIndexes).length > 0 ? { jobsIndexes } : {}),
    ...(payloadsTable ? { payloadsTable } : {}),
  };
  checkWarmThroughput(settings);
  return settings;
}

/** The CDK form of one entry (undefined = not warmed: DynamoDB's own initial throughput). */
function cdkWarmThroughput(entry: WarmUnits | undefined): dynamodb.WarmThroughput | undefined {
  if (entry === undefined) return undefined;
  return {
    ...(entry.readUnitsPerSecond !== undefined ? { readUnitsPerSecond: entry.readUnitsPerSecond } : {}),
    ...(entry.writeUnitsPerSecond !== undefined ? { writeUnitsPerSecond: entry.writeUnitsPerSecond } : {}),
  };
}

export {
  cdkWarmThroughput,
  checkWarmThroughput,
  type JobsIndexName,
  ON_DEMAND_INITIAL,
  type WarmTarget,
  type WarmThroughputSettings,
  type WarmUnits,
  WRITE_UNITS,
  warmThroughputFor,
};
