import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startSqsEngine } from '../../infra/local/engines.js';
import { createSqsClient } from '../../lib/sqs-client.js';
import { renderMarkdown } from './report/markdown.js';
import { type BenchResults, runMeta } from './report/results.js';
import { measureBundles } from './scenarios/bundles.js';
import { measureCapacity } from './scenarios/capacity.js';
import { measureFlowControl } from './scenarios/flow-control.js';
import { measureHandlerBatches } from './scenarios/handler-batches.js';
import { measureHotPartitions } from './scenarios/hot-partitions.js';
import { measureMemory } from './scenarios/memory.js';
import { measureRequestCounts } from './scenarios/request-counts.js';
import { measureShadowUnits } from './scenarios/shadow-capacity.js';
import { measureStaleWorker } from './scenarios/stale-worker.js';
import { measureSweeperScaling } from './scenarios/sweeper-scaling.js';
import { measureThroughputAsDeployed } from './scenarios/throughput-as-deployed.js';
import { measureWriteShapes } from './scenarios/write-shapes.js';
import { type Baseline, BaselineError, baselineOption, prepareBaseline } from './support/baseline.js';
import { BENCH_ENGINE, type BenchEngine, startBenchEngine } from './support/bench-engine.js';
import { nowMs } from './support/stats.js';

// `npm run bench [-- --quick] [-- --only=1,2] [-- --baseline=<commit>]`: runs the figures of issues #8 and #42 (figure 11) on embedded engines, prints the
// report and writes BENCHMARKS.md at the top of the repository. See test/bench/README.md.

/** Sizes of a full and a quick run. */
const Sizes = {
  full: {
    jobsPerRun: 200,
    repetitions: 7,
    warmupJobs: 100,
    staleOperations: 3,
    sweeperLarge: 100_000,
    // 61 rounds: the 95 % interval of a median ratio (the 23rd to the 39th of 61) is narrow enough to judge 1.1×.
    initRuns: 61,
    writeBlocks: 7,
    loadJobsPerWorker: 1_500,
    handlerBatchesPerRun: 20,
    handlerWarmupBatches: 4,
    // Figure 11: issue #42's flood; quick mode sends a tenth and the report says so.
    flowNoisyJobs: 10_000,
  },
  quick: {
    jobsPerRun: 100,
    repetitions: 3,
    warmupJobs: 50,
    staleOperations: 2,
    sweeperLarge: 10_000,
    initRuns: 5,
    writeBlocks: 3,
    loadJobsPerWorker: 300,
    handlerBatchesPerRun: 8,
    handlerWarmupBatches: 2,
    flowNoisyJobs: 1_000,
  },
} as const;

const OUTPUT = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

/** `--price-wru=0.625` style options: on-demand USD per million request units. */
function priceOption(argv: readonly string[], name: string, fallback: number): number {
  const raw = argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a price in USD per million units`);
  return value;
}

function parseArgs(argv: readonly string[]): {
  mode: 'full' | 'quick';
  figures: Set<number>;
  prices: { perMillionWru: number; perMillionRru: number };
  baseline: string | undefined;
} {
  const only = argv.find((arg) => arg.startsWith('--only='));
  const figures = only
    ? new Set(
        only
          .slice('--only='.length)
          .split(',')
          .map((value) => Number(value)),
      )
    : new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 11]);
  const known = ['--only=', '--price-wru=', '--price-rru=', '--baseline='];
  for (const arg of argv) {
    if (arg !== '--quick' && !known.some((prefix) => arg.startsWith(prefix)))
      throw new Error(
        `unknown option ${arg} (use --quick, --only=1,2,…, --price-wru=, --price-rru=, --baseline=<commit>)`,
      );
  }
  const baseline = baselineOption(argv);
  if (baseline !== undefined && !figures.has(5) && !figures.has(9))
    throw new BaselineError('--baseline= compares figures 5 and 9: add 5 or 9 to --only');
  const prices = {
    perMillionWru: priceOption(argv, 'price-wru', 0.625),
    perMillionRru: priceOption(argv, 'price-rru', 0.125),
  };
  return { mode: argv.includes('--quick') ? 'quick' : 'full', figures, prices, baseline };
}

function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Runs `body` on a fresh dynalite in its own process and always stops it. */
async function withEngine<T>(body: (engine: BenchEngine) => Promise<T>): Promise<T> {
  const engine = await startBenchEngine({ process: true });
  try {
    return await body(engine);
  } finally {
    await engine.stop();
  }
}

/** Runs `body` with a client on a fresh fauxqs (and its endpoint, for workers' own clients); always stops it. */
async function withSqs<T>(body: (sqs: SQSClient, endpoint: string) => Promise<T>): Promise<T> {
  const sqsEngine = await startSqsEngine(BENCH_ENGINE);
  const sqs = createSqsClient({ endpoint: sqsEngine.endpoint });
  try {
    return await body(sqs, sqsEngine.endpoint);
  } finally {
    sqs.destroy();
    await sqsEngine.stop();
  }
}

async function main(): Promise<void> {
  const { mode, figures, prices, baseline: baselineRef } = parseArgs(process.argv.slice(2));
  // Checked out before anything runs, so an unknown commit stops the run at once.
  const baseline = baselineRef === undefined ? undefined : prepareBaseline(baselineRef);
  try {
    await runFigures(mode, figures, prices, baseline);
  } finally {
    baseline?.remove();
  }
}

async function runFigures(
  mode: 'full' | 'quick',
  figures: Set<number>,
  prices: { perMillionWru: number; perMillionRru: number },
  baseline: Baseline | undefined,
): Promise<void> {
  const sizes = Sizes[mode];
  const started = nowMs();
  const results: BenchResults = { meta: runMeta(mode, prices) };
  if (figures.has(1) || figures.has(2) || figures.has(3)) {
    await withEngine(async (engine) => {
      if (figures.has(1)) {
        progress('figure 1: requests per job');
        results.requestCounts = await measureRequestCounts(engine);
      }
      if (figures.has(2)) {
        progress(
          'figure 2: throughput, both workers from one esbuild bundle (the longest part after the sweeper load)',
        );
        const throughput = await measureThroughputAsDeployed(engine, {
          concurrencies: [1, 8, 32],
          jobsPerRun: sizes.jobsPerRun,
          repetitions: sizes.repetitions,
          warmupJobs: sizes.warmupJobs,
          modes: ['protocol', 'side-effect', 'side-effect-update', 'side-effect-peer-cached'],
        });
        results.throughput = throughput.rows;
        results.throughputCpuPinning = throughput.cpuPinning;
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
    results.bundles = await measureBundles({ initRuns: sizes.initRuns, ...(baseline ? { baseline } : {}) });
  }
  if (figures.has(6)) {
    progress('figure 6: memory over 10,000 jobs per system (child processes)');
    results.memory = await withEngine((engine) =>
      measureMemory(engine, { jobs: 10_000, checkpoint: 1_000, concurrency: 8, systems: ['leasefence', 'powertools'] }),
    );
  }
  if (figures.has(7)) {
    progress('figure 7: capacity units per job (accountant), example row sizes');
    await withSqs(async (sqs) => {
      const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'bench-capacity' }))).QueueUrl ?? '';
      results.capacity = await withEngine((engine) => measureCapacity(engine, { sqs, queueUrl }));
      results.shadowCapacity = await withEngine((engine) => measureShadowUnits(engine));
    });
  }
  if (figures.has(8)) {
    progress('figure 8: load generator, 3 worker processes, one tenant and many');
    results.hotPartitions = await withEngine((engine) =>
      measureHotPartitions(engine, { workers: 3, jobsPerWorker: sizes.loadJobsPerWorker, concurrency: 8 }),
    );
  }
  if (figures.has(9)) {
    progress('figure 9: SQS batches of 10 through both handlers as deployed (one child process, engine in its own)');
    results.handlerBatches = await withEngine((engine) =>
      measureHandlerBatches(engine, {
        concurrencies: [1, 8],
        modes: ['protocol', 'fenced-record', 'fenced-record-quiet-logs'],
        batchesPerRun: sizes.handlerBatchesPerRun,
        warmupBatches: sizes.handlerWarmupBatches,
        repetitions: sizes.repetitions,
        ...(baseline ? { baseline } : {}),
      }),
    );
  }
  if (figures.has(11)) {
    progress(
      `figure 11: flow control, ${sizes.flowNoisyJobs.toLocaleString('en-US')} noisy jobs and 10 quiet ones, 3 modes`,
    );
    results.flowControl = await withSqs((sqs, sqsEndpoint) =>
      withEngine((engine) =>
        measureFlowControl(engine, {
          sqs,
          sqsEndpoint,
          noisyJobs: sizes.flowNoisyJobs,
          quietJobs: 10,
          pool: 8,
          bulkConsumers: 6,
          perTenantLimit: 2,
          jobMs: 20,
          unitJobs: 20,
        }),
      ),
    );
  }
  results.meta.runtimeSeconds = (nowMs() - started) / 1000;
  const markdown = renderMarkdown(results);
  writeFileSync(OUTPUT, markdown);
  process.stdout.write(`${markdown}\n`);
  progress(`wrote ${OUTPUT} in ${results.meta.runtimeSeconds.toFixed(0)} s`);
}

await main();
