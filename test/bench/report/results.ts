import { readFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform } from 'node:os';
import type { BundleReport } from '../scenarios/bundles.js';
import type { CapacityReport, Units as CapacityUnits } from '../scenarios/capacity.js';
import type { FlowControlReport } from '../scenarios/flow-control.js';
import type { HandlerBatchReport } from '../scenarios/handler-batches.js';
import type { HotPartitionRow } from '../scenarios/hot-partitions.js';
import type { MemoryRow } from '../scenarios/memory.js';
import type { RequestCountRow } from '../scenarios/request-counts.js';
import type { StaleWorkerRow } from '../scenarios/stale-worker.js';
import type { SweeperScaling } from '../scenarios/sweeper-scaling.js';
import type { ThroughputRow } from '../scenarios/throughput.js';
import type { WriteShapeRow } from '../scenarios/write-shapes.js';

/** Where and how the run happened: the context every ratio needs. */
interface RunMeta {
  startedAt: string;
  mode: 'full' | 'quick';
  node: string;
  platform: string;
  cpus: number;
  loadAverageAtStart: number;
  versions: Record<string, string>;
  runtimeSeconds: number;
  /** On-demand prices in USD per million request units, for the cost per million jobs. */
  prices: { perMillionWru: number; perMillionRru: number };
}

/** Everything one run measured; a figure left out with `--only` is undefined. */
interface BenchResults {
  meta: RunMeta;
  requestCounts?: RequestCountRow[];
  throughput?: ThroughputRow[];
  /** Where figure 2's engine and worker ran (CPU pinning, or why there was none). */
  throughputCpuPinning?: string;
  writeShapes?: WriteShapeRow[];
  stale?: StaleWorkerRow[];
  sweeper?: SweeperScaling;
  bundles?: BundleReport;
  memory?: MemoryRow[];
  capacity?: CapacityReport;
  hotPartitions?: HotPartitionRow[];
  /** Shadow mode's units per shadowed execution (the accountant, with figure 7; used by figure 10). */
  shadowCapacity?: CapacityUnits;
  /** Figure 9: SQS batches through the deployed handlers. */
  handlerBatches?: HandlerBatchReport;
  /** Figure 11: a noisy tenant and a quiet one, without limits, with a per-tenant limit and with priorities. */
  flowControl?: FlowControlReport;
}

function packageVersion(name: string): string {
  try {
    const file = new URL(`../../../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    return '?';
  }
}

/** The run's context, read once at the start (runtimeSeconds is filled in at the end). */
function runMeta(
  mode: RunMeta['mode'],
  prices: RunMeta['prices'] = { perMillionWru: 0.625, perMillionRru: 0.125 },
): RunMeta {
  return {
    prices,
    startedAt: new Date().toISOString(),
    mode,
    node: process.version,
    platform: `${platform()} ${arch()}`,
    cpus: cpus().length,
    loadAverageAtStart: loadavg()[0] ?? 0,
    versions: Object.fromEntries(
      ['dynalite', 'fauxqs', '@aws-lambda-powertools/idempotency', '@aws-sdk/client-dynamodb', 'esbuild'].map(
        (name) => [name, packageVersion(name)],
      ),
    ),
    runtimeSeconds: 0,
  };
}

export { type BenchResults, type RunMeta, runMeta };
