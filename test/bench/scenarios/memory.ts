import { fileURLToPath } from 'node:url';
import type { BenchEngine } from '../support/bench-engine.js';
import { runJsonChild } from '../support/child-json.js';
import { slope } from '../support/stats.js';

/** Memory of the worker process after `jobs` jobs (full GC first). */
interface MemoryCheckpoint {
  jobs: number;
  rssBytes: number;
  heapUsedBytes: number;
  peakRssBytes: number;
}

/**
 * Figure 6 for one system: checkpoints, peak RSS and the growth per 1,000 jobs (least squares over every
 * checkpoint after the first, which still carries warm-up: JIT code, SDK caches, socket pool).
 */
interface MemoryRow {
  system: 'leasefence' | 'powertools';
  checkpoints: MemoryCheckpoint[];
  peakRssBytes: number;
  rssSlopeBytesPer1k: number;
  heapSlopeBytesPer1k: number;
}

/** Sizes of figure 6. */
interface MemoryOptions {
  jobs: number;
  checkpoint: number;
  concurrency: number;
  systems: ReadonlyArray<MemoryRow['system']>;
}

const CHILD = fileURLToPath(new URL('../memory/child.ts', import.meta.url));
const CHILD_TIMEOUT_MS = 15 * 60_000;

/** Runs the child (node --expose-gc, TypeScript through tsx) and collects its JSON lines. */
function runChild(config: Record<string, unknown>): Promise<MemoryCheckpoint[]> {
  return runJsonChild<MemoryCheckpoint>(CHILD, config, {
    name: 'memory',
    nodeFlags: ['--expose-gc'],
    timeoutMs: CHILD_TIMEOUT_MS,
  });
}

/**
 * Figure 6: a worker process handles `jobs` jobs (concurrency as given) against this process's dynalite; RSS
 * and heap after a full GC at every checkpoint. Flat means no growth per job: the slopes stay near zero.
 */
async function measureMemory(engine: BenchEngine, options: MemoryOptions): Promise<MemoryRow[]> {
  const tables = await engine.createLeasefenceTables('memory');
  const idempotencyTable = await engine.createKeyedTable('memory-idempotency', 'id');
  const rows: MemoryRow[] = [];
  for (const system of options.systems) {
    const recordsTable = await engine.createKeyedTable(`memory-records-${system}`, 'pk');
    const checkpoints = await runChild({
      system,
      endpoint: engine.endpoint,
      ...tables,
      idempotencyTable,
      recordsTable,
      jobs: options.jobs,
      checkpoint: options.checkpoint,
      concurrency: options.concurrency,
    });
    const steady = checkpoints.length >= 3 ? checkpoints.slice(1) : checkpoints;
    const points = (pick: (checkpoint: MemoryCheckpoint) => number) =>
      steady.map((checkpoint) => ({ x: checkpoint.jobs / 1000, y: pick(checkpoint) }));
    rows.push({
      system,
      checkpoints,
      peakRssBytes: Math.max(...checkpoints.map((checkpoint) => checkpoint.peakRssBytes)),
      rssSlopeBytesPer1k: slope(points((checkpoint) => checkpoint.rssBytes)),
      heapSlopeBytesPer1k: slope(points((checkpoint) => checkpoint.heapUsedBytes)),
    });
  }
  return rows;
}

export { type MemoryCheckpoint, type MemoryOptions, type MemoryRow, measureMemory };
