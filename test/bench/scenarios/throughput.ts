import { mapBounded } from '../../../lib/internal/bounded-parallel.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { benchIdentity, leasefenceMessage, peerJob, runName } from '../support/jobs.js';
import { createLeasefenceWorker } from '../support/leasefence-worker.js';
import { createPeerWorker } from '../support/peer-worker.js';
import { median, nowMs, pairedRatio, percentile } from '../support/stats.js';

/**
 * Protocol only (the job writes nothing), or with one side-effect write per job, which the peer makes with a
 * PutItem: `side-effect` is leasefence's like-for-like fenced put (`ctx.records.put`, the judged row),
 * `side-effect-update` its fenced update (`ctx.records.write`). Both clients have the SDK's default options in
 * these three. `side-effect-peer-cached` is the fenced put against a peer whose client has the SDK's
 * cacheMiddleware, which leasefence does not use (reported only: it shows what that option is worth).
 */
type ThroughputMode = 'protocol' | 'side-effect' | 'side-effect-update' | 'side-effect-peer-cached';

/** One system under test: builds `count` fresh jobs (untimed), then handles one (timed). */
interface JobRunner {
  prepare(count: number): unknown[];
  handle(job: unknown): Promise<void>;
  requests(): number;
  resetRequests(): void;
}

/** One timed run of one system at one concurrency. */
interface RunSample {
  jobsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requestsPerJob: number;
  /**
   * CPU (user + system) per job of this process: the worker's own when the engine runs in its own process
   * (`npm run bench` does), worker and engine together when it runs in-process.
   */
  cpuMsPerJob: number;
  /** CPU per job of the engine's process (NaN when it runs in this process). */
  engineCpuMsPerJob: number;
}

/** Medians over the repetitions of one system at one concurrency. */
interface SystemSummary extends RunSample {
  samples: RunSample[];
}

/** One row of figure 2. `ratio` is the median of the per-repetition ratios leasefence / peer (paired runs). */
interface ThroughputRow {
  mode: ThroughputMode;
  concurrency: number;
  leasefence: SystemSummary;
  peer: SystemSummary;
  ratio: number;
}

/** Sizes of figure 2. */
interface ThroughputOptions {
  concurrencies: readonly number[];
  /** Jobs per timed run; at least 8 × the concurrency, so ramp-up and drain stay a small part of a run. */
  jobsPerRun: number;
  repetitions: number;
  warmupJobs: number;
  modes: readonly ThroughputMode[];
}

async function leasefenceRunner(engine: BenchEngine, mode: ThroughputMode): Promise<JobRunner> {
  const tables = await engine.createLeasefenceTables('tput');
  const sideEffectTable = mode !== 'protocol' ? await engine.createKeyedTable('tput-records', 'pk') : undefined;
  const worker = createLeasefenceWorker({
    engine,
    tables,
    ...(sideEffectTable ? { sideEffectTable, sideEffectWrite: mode === 'side-effect-update' ? 'update' : 'put' } : {}),
  });
  return {
    prepare: (count) => {
      const run = runName('lf');
      return Array.from({ length: count }, (_, index) => leasefenceMessage(benchIdentity(run, index), 'ref'));
    },
    handle: async (message) => {
      const result = await worker.runtime.handleMessage(message as ReturnType<typeof leasefenceMessage>);
      if (result.status !== 'executed' || result.result.state !== 'succeeded') {
        throw new Error(`leasefence job did not succeed: ${JSON.stringify(result)}`);
      }
    },
    requests: () => worker.counter.total(),
    resetRequests: () => worker.counter.reset(),
  };
}

async function peerRunner(engine: BenchEngine, mode: ThroughputMode): Promise<JobRunner> {
  const tableName = await engine.createKeyedTable('tput-idempotency', 'id');
  const sideEffectTable = mode !== 'protocol' ? await engine.createKeyedTable('tput-peer-records', 'pk') : undefined;
  const peer = createPeerWorker({
    engine,
    tableName,
    cacheMiddleware: mode === 'side-effect-peer-cached',
    ...(sideEffectTable ? { sideEffectTable } : {}),
  });
  return {
    prepare: (count) => {
      const run = runName('peer');
      // The SQS body as a string, like leasefence's message: both parse it and validate the payload per job.
      return Array.from({ length: count }, (_, index) => JSON.stringify(peerJob(benchIdentity(run, index))));
    },
    handle: async (body) => {
      const result = await peer.handleBody(body as string);
      if (result.outcomeCode !== 'done') throw new Error(`peer job did not succeed: ${JSON.stringify(result)}`);
    },
    requests: () => peer.counter.total(),
    resetRequests: () => peer.counter.reset(),
  };
}

/** Handles `count` fresh jobs with `concurrency` in flight; the clock runs only around the handling. */
async function timedRun(
  runner: JobRunner,
  concurrency: number,
  count: number,
  engine: BenchEngine,
): Promise<RunSample> {
  const jobs = runner.prepare(count);
  const latencies: number[] = new Array(count);
  runner.resetRequests();
  const engineBefore = engine.engineCpuMs();
  const cpuBefore = process.cpuUsage();
  const started = nowMs();
  await mapBounded(
    jobs.map((job, index) => ({ job, index })),
    concurrency,
    async ({ job, index }) => {
      const begin = nowMs();
      await runner.handle(job);
      latencies[index] = nowMs() - begin;
    },
  );
  const elapsedMs = nowMs() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const engineAfter = engine.engineCpuMs();
  return {
    engineCpuMsPerJob:
      engineBefore !== undefined && engineAfter !== undefined ? (engineAfter - engineBefore) / count : Number.NaN,
    jobsPerSecond: count / (elapsedMs / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    requestsPerJob: runner.requests() / count,
    cpuMsPerJob: (cpu.user + cpu.system) / 1000 / count,
  };
}

function summarise(samples: RunSample[]): SystemSummary {
  return {
    jobsPerSecond: median(samples.map((sample) => sample.jobsPerSecond)),
    p50Ms: median(samples.map((sample) => sample.p50Ms)),
    p99Ms: median(samples.map((sample) => sample.p99Ms)),
    requestsPerJob: median(samples.map((sample) => sample.requestsPerJob)),
    cpuMsPerJob: median(samples.map((sample) => sample.cpuMsPerJob)),
    engineCpuMsPerJob: median(samples.map((sample) => sample.engineCpuMsPerJob)),
    samples,
  };
}

/**
 * Figure 2: jobs per second through WorkerRuntime.handleMessage vs the same job under makeIdempotent, no
 * SQS in the loop. Per concurrency: a warm-up of both, then `repetitions` paired runs whose order alternates
 * (so drift of the shared engine falls on both), reported as medians.
 */
async function measureThroughput(engine: BenchEngine, options: ThroughputOptions): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const mode of options.modes) {
    const leasefence = await leasefenceRunner(engine, mode);
    const peer = await peerRunner(engine, mode);
    for (const concurrency of options.concurrencies) {
      const jobsPerRun = Math.max(options.jobsPerRun, concurrency * 8);
      await timedRun(leasefence, concurrency, options.warmupJobs, engine);
      await timedRun(peer, concurrency, options.warmupJobs, engine);
      const lfSamples: RunSample[] = [];
      const peerSamples: RunSample[] = [];
      for (let repetition = 0; repetition < options.repetitions; repetition += 1) {
        const leasefenceFirst = repetition % 2 === 0;
        if (leasefenceFirst) lfSamples.push(await timedRun(leasefence, concurrency, jobsPerRun, engine));
        peerSamples.push(await timedRun(peer, concurrency, jobsPerRun, engine));
        if (!leasefenceFirst) lfSamples.push(await timedRun(leasefence, concurrency, jobsPerRun, engine));
      }
      rows.push({
        mode,
        concurrency,
        leasefence: summarise(lfSamples),
        peer: summarise(peerSamples),
        // A peer run with no throughput gives no ratio: NaN, which no target judges met.
        ratio:
          pairedRatio(
            lfSamples.map((sample) => sample.jobsPerSecond),
            peerSamples.map((sample) => sample.jobsPerSecond),
          ) ?? Number.NaN,
      });
    }
  }
  return rows;
}

export { measureThroughput, type RunSample, type ThroughputMode, type ThroughputOptions, type ThroughputRow };
