import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderMarkdown } from './report/markdown.js';
import { type BenchResults, runMeta } from './report/results.js';
import { measureBundles } from './scenarios/bundles.js';
import { measureMemory } from './scenarios/memory.js';
import { measureRequestCounts } from './scenarios/request-counts.js';
import { measureStaleWorker } from './scenarios/stale-worker.js';
import { measureSweeperScaling } from './scenarios/sweeper-scaling.js';
import { measureThroughput } from './scenarios/throughput.js';
import { measureWriteShapes } from './scenarios/write-shapes.js';
import { type BenchEngine, startBenchEngine } from './support/bench-engine.js';
import { nowMs } from './support/stats.js';

// `npm run bench [-- --quick] [-- --only=1,2]`: runs the figures of issue #8 on embedded engines, prints the
// report and writes BENCHMARKS.md at the top of the repository. See test/bench/README.md.

/** Sizes of a full and a quick run. */
const Sizes = {
  full: {
    jobsPerRun: 200,
    repetitions: 7,
    warmupJobs: 100,
    staleOperations: 3,
    sweeperLarge: 100_000,
    initRuns: 15,
    writeBlocks: 7,
  },
  quick: {
    jobsPerRun: 100,
    repetitions: 3,
    warmupJobs: 50,
    staleOperations: 2,
    sweeperLarge: 10_000,
    initRuns: 5,
    writeBlocks: 3,
  },
} as const;

const OUTPUT = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

function parseArgs(argv: readonly string[]): { mode: 'full' | 'quick'; figures: Set<number> } {
  const only = argv.find((arg) => arg.startsWith('--only='));
  const figures = only
    ? new Set(
        only
          .slice('--only='.length)
          .split(',')
          .map((value) => Number(value)),
      )
    : new Set([1, 2, 3, 4, 5, 6]);
  for (const arg of argv) {
    if (arg !== '--quick' && !arg.startsWith('--only='))
      throw new Error(`unknown option ${arg} (use --quick, --only=1,2,…)`);
  }
  return { mode: argv.includes('--quick') ? 'quick' : 'full', figures };
}

function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Runs `body` on a fresh dynalite and always stops it. */
async function withEngine<T>(body: (engine: BenchEngine) => Promise<T>): Promise<T> {
  const engine = await startBenchEngine();
  try {
    return await body(engine);
  } finally {
    await engine.stop();
  }
}

async function main(): Promise<void> {
  const { mode, figures } = parseArgs(process.argv.slice(2));
  const sizes = Sizes[mode];
  const started = nowMs();
  const results: BenchResults = { meta: runMeta(mode) };
  if (figures.has(1) || figures.has(2) || figures.has(3)) {
    await withEngine(async (engine) => {
      if (figures.has(1)) {
        progress('figure 1: requests per job');
        results.requestCounts = await measureRequestCounts(engine);
      }
      if (figures.has(2)) {
        progress('figure 2: throughput (the longest part after the sweeper load)');
        results.throughput = await measureThroughput(engine, {
          concurrencies: [1, 8, 32],
          jobsPerRun: sizes.jobsPerRun,
          repetitions: sizes.repetitions,
          warmupJobs: sizes.warmupJobs,
          modes: ['protocol', 'side-effect'],
        });
        progress('figure 2b: cost of the side-effect write by shape');
        results.writeShapes = await measureWriteShapes(engine, { blocks: sizes.writeBlocks, perBlock: 100 });
      }
      if (figures.has(3)) {
        progress('figure 3: stale worker');
        results.stale = await measureStaleWorker(engine, sizes.staleOperations);
      }
    });
  }
  if (figures.has(4)) {
    progress(`figure 4: sweeper, loading 1,000 and ${sizes.sweeperLarge.toLocaleString('en-US')} rows`);
    results.sweeper = await withEngine((engine) =>
      measureSweeperScaling(engine, { sizes: [1_000, sizes.sweeperLarge], expired: 100, onProgress: progress }),
    );
  }
  if (figures.has(5)) {
    progress('figure 5: bundles (CDK synth twice, then init timing)');
    results.bundles = await measureBundles({ initRuns: sizes.initRuns });
  }
  if (figures.has(6)) {
    progress('figure 6: memory over 10,000 jobs per system (child processes)');
    results.memory = await withEngine((engine) =>
      measureMemory(engine, { jobs: 10_000, checkpoint: 1_000, concurrency: 8, systems: ['leasefence', 'powertools'] }),
    );
  }
  results.meta.runtimeSeconds = (nowMs() - started) / 1000;
  const markdown = renderMarkdown(results);
  writeFileSync(OUTPUT, markdown);
  process.stdout.write(`${markdown}\n`);
  progress(`wrote ${OUTPUT} in ${results.meta.runtimeSeconds.toFixed(0)} s`);
}

await main();
