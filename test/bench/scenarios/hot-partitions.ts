import { fileURLToPath } from 'node:url';
import { TENANT_BUCKETS } from '../../../lib/store/table.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { runJsonChild } from '../support/child-json.js';

/** One tenant mix of figure 8: how evenly the writes of several worker processes spread over keys. */
interface HotPartitionRow {
  mix: string;
  tenants: number;
  workers: number;
  jobs: number;
  /** Jobs per second of all workers together, over the slowest worker's handling time (engine-bound here). */
  jobsPerSecond: number;
  tableWrites: number;
  distinctKeys: number;
  /** Hottest partition key's share of the jobs table's writes. */
  hottestKeyShare: number;
  /** Hottest deadline-index shard's share of the index writes. */
  hottestShardShare: number;
}

/** Sizes of figure 8. */
interface HotPartitionOptions {
  workers: number;
  jobsPerWorker: number;
  concurrency: number;
}

const CHILD = fileURLToPath(new URL('../load/child.ts', import.meta.url));

interface ChildReport {
  jobs: number;
  seconds: number;
  writesByKey: Record<string, number>;
  indexWritesByShard: Record<string, number>;
}

async function runChild(config: Record<string, unknown>): Promise<ChildReport> {
  const [report] = await runJsonChild<ChildReport>(CHILD, config, { name: 'load', timeoutMs: 15 * 60_000 });
  return report as ChildReport;
}

function merge(target: Record<string, number>, source: Record<string, number>): void {
  for (const [key, count] of Object.entries(source)) target[key] = (target[key] ?? 0) + count;
}

function hottestShare(counts: Record<string, number>): number {
  const values = Object.values(counts);
  const total = values.reduce((sum, count) => sum + count, 0);
  return total === 0 ? 0 : Math.max(...values) / total;
}

/**
 * Figure 8: a load generator. `workers` child processes, each a leasefence worker, handle jobs at once
 * against one engine, for one tenant and for many; reports the hottest partition key's share of the writes
 * (ideal for one tenant: 1 / TENANT_BUCKETS) and the hottest deadline-index shard's share.
 */
async function measureHotPartitions(engine: BenchEngine, options: HotPartitionOptions): Promise<HotPartitionRow[]> {
  const mixes = [
    { mix: 'one tenant', tenants: ['hot'] },
    { mix: 'many tenants (uniform)', tenants: Array.from({ length: 200 }, (_, index) => `t${index}`) },
  ];
  const rows: HotPartitionRow[] = [];
  for (const { mix, tenants } of mixes) {
    const tables = await engine.createLeasefenceTables('load');
    const reports = await Promise.all(
      Array.from({ length: options.workers }, (_, index) =>
        runChild({
          endpoint: engine.endpoint,
          ...tables,
          tenants,
          jobs: options.jobsPerWorker,
          concurrency: options.concurrency,
          worker: `w${index}-${Math.random().toString(36).slice(2, 8)}`,
        }),
      ),
    );
    // The slowest worker's own handling time (process start and compile excluded).
    const seconds = Math.max(...reports.map((report) => report.seconds));
    const writes: Record<string, number> = {};
    const shards: Record<string, number> = {};
    for (const report of reports) {
      merge(writes, report.writesByKey);
      merge(shards, report.indexWritesByShard);
    }
    const jobs = reports.reduce((sum, report) => sum + report.jobs, 0);
    rows.push({
      mix,
      tenants: tenants.length,
      workers: options.workers,
      jobs,
      jobsPerSecond: jobs / seconds,
      tableWrites: Object.values(writes).reduce((sum, count) => sum + count, 0),
      distinctKeys: Object.keys(writes).length,
      hottestKeyShare: hottestShare(writes),
      hottestShardShare: hottestShare(shards),
    });
  }
  return rows;
}

export { type HotPartitionOptions, type HotPartitionRow, measureHotPartitions, TENANT_BUCKETS };
