import { pathToFileURL } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { mapBounded } from '../../../lib/internal/bounded-parallel.js';
import { countRequests, type RequestCounter } from '../../support/request-counter.js';
import { attachBenchEngine } from '../support/attached-engine.js';
import { pinProcess } from '../support/cpu-pinning.js';
import { benchIdentity, leasefenceMessage, peerJob, runName } from '../support/jobs.js';
import { median, medianInterval, nowMs, pairedRatio, pairedRatios, percentile } from '../support/stats.js';
import type {
  HandlerBaselineCell,
  HandlerBatchRow,
  HandlerChildConfig,
  HandlerRunSample,
  HandlerSystem,
} from './types.js';

// Child process of the end-to-end figure: imports both handler bundles (and a baseline commit's worker, when given) (each built as the construct builds a
// function) once per mode with that mode's environment, feeds them SQS events of `batchSize` records as the
// Lambda event source delivers them, `concurrency` batches in flight, and prints one JSON line of rows. The
// engine runs in the parent's process; this process's CPU is the handlers' own (and this loop's, the same for both).

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

interface LoadedSystem {
  handler: Handler;
  counter: RequestCounter;
  /** Builds the bodies of `count` fresh jobs (untimed). */
  bodies(count: number): string[];
}

const config = JSON.parse(process.argv[2] ?? '{}') as HandlerChildConfig;
if (config.workerCpus) pinProcess(process.pid, config.workerCpus);
const engine = attachBenchEngine({ endpoint: config.endpoint, pid: config.enginePid });
const baseEnvironment = { ...process.env };
/** The Lambda context both handlers get: 30 s left (the peer sets its in-progress expiry from it). */
const CONTEXT: Context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'bench-worker',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-worker',
  memoryLimitInMB: '512',
  awsRequestId: 'bench',
  logGroupName: '/aws/lambda/bench-worker',
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 30_000,
  done: () => {},
  fail: () => {},
  succeed: () => {},
};
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:bench-jobs';
/** A trusted producer's IAM unique id, as SQS stamps it on every record. */
const SENDER_ID = 'AROABENCHPRODUCER0001';

/** A record as the event source delivers it (first receive). */
function sqsRecord(body: string, index: number): SQSRecord {
  const now = String(Date.now());
  const messageId = `${runName('m')}-${index}`;
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: now,
      SenderId: SENDER_ID,
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'us-east-1',
  };
}

/** What a handler bundle exports; a baseline's entry also exports its commit's message builder (support/baseline.ts). */
interface HandlerModule {
  handler: Handler & { client?: DynamoDBDocumentClient };
  client?: unknown;
  benchIdentity?: typeof benchIdentity;
  leasefenceMessage?: typeof leasefenceMessage;
}

/** Imports a bundle as a fresh module instance (its own clients and configuration) under `environment`. */
async function importHandler(bundle: string, instance: string, environment: Record<string, string>) {
  process.env = { ...baseEnvironment, ...environment };
  try {
    return (await import(`${pathToFileURL(bundle).href}?instance=${instance}`)) as HandlerModule;
  } finally {
    process.env = { ...baseEnvironment };
  }
}

/** The bodies of `count` fresh jobs for a system: the peer's event, or a worker's message as its own commit builds it. */
function bodiesOf(system: HandlerSystem, loaded: HandlerModule): (count: number) => string[] {
  const identity = loaded.benchIdentity ?? benchIdentity;
  const message = loaded.leasefenceMessage ?? leasefenceMessage;
  return (count) => {
    const run = runName(system);
    return Array.from({ length: count }, (_, index) =>
      system === 'peer'
        ? JSON.stringify(peerJob(benchIdentity(run, index)))
        : message(identity(run, index), 'ref').body,
    );
  };
}

async function loadSystem(system: HandlerSystem, mode: string): Promise<LoadedSystem> {
  const spec = config.systems[system];
  if (!spec) throw new Error(`no bundle for ${system}`);
  const loaded = await importHandler(spec.bundle, `${system}-${mode}`, { ...spec.environment, ...spec.modes[mode] });
  // A worker's handler exposes its one client; the peer's entry exports the client it gave Powertools.
  const client = (system === 'peer' ? loaded.client : loaded.handler.client) as DynamoDBDocumentClient;
  return { handler: loaded.handler, counter: countRequests(client), bodies: bodiesOf(system, loaded) };
}

/** `batches` events of `batchSize` fresh jobs, `concurrency` in flight; the clock runs only around the handling. */
async function timedRun(system: LoadedSystem, concurrency: number, batches: number): Promise<HandlerRunSample> {
  const size = config.batchSize;
  const bodies = system.bodies(batches * size);
  const events: SQSEvent[] = Array.from({ length: batches }, (_, batch) => ({
    Records: bodies.slice(batch * size, (batch + 1) * size).map((body, index) => sqsRecord(body, index)),
  }));
  const latencies: number[] = new Array(batches);
  let failures = 0;
  system.counter.reset();
  const engineBefore = engine.engineCpuMs();
  const cpuBefore = process.cpuUsage();
  const started = nowMs();
  await mapBounded(
    events.map((event, index) => ({ event, index })),
    concurrency,
    async ({ event, index }) => {
      const begin = nowMs();
      const response = await system.handler(event, CONTEXT);
      latencies[index] = nowMs() - begin;
      failures += response.batchItemFailures.length;
    },
  );
  const elapsedMs = nowMs() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const engineAfter = engine.engineCpuMs();
  const jobs = batches * size;
  return {
    jobs,
    batches,
    batchItemFailures: failures,
    jobsPerSecond: jobs / (elapsedMs / 1000),
    batchP50Ms: percentile(latencies, 50),
    batchP99Ms: percentile(latencies, 99),
    cpuMsPerJob: (cpu.user + cpu.system) / 1000 / jobs,
    engineCpuMsPerJob:
      engineBefore !== undefined && engineAfter !== undefined ? (engineAfter - engineBefore) / jobs : Number.NaN,
    writesPerJob: system.counter.writes() / jobs,
    readsPerJob: system.counter.reads() / jobs,
  };
}

function summarise(samples: HandlerRunSample[]) {
  const of = (pick: (sample: HandlerRunSample) => number) => median(samples.map(pick));
  return {
    jobs: samples.reduce((total, sample) => total + sample.jobs, 0),
    batches: samples.reduce((total, sample) => total + sample.batches, 0),
    batchItemFailures: samples.reduce((total, sample) => total + sample.batchItemFailures, 0),
    jobsPerSecond: of((sample) => sample.jobsPerSecond),
    batchP50Ms: of((sample) => sample.batchP50Ms),
    batchP99Ms: of((sample) => sample.batchP99Ms),
    cpuMsPerJob: of((sample) => sample.cpuMsPerJob),
    engineCpuMsPerJob: of((sample) => sample.engineCpuMsPerJob),
    writesPerJob: of((sample) => sample.writesPerJob),
    readsPerJob: of((sample) => sample.readsPerJob),
  };
}

/**
 * The order of repetition `repetition`: rotated by one each time (two systems alternate, as before the baseline);
 * with three, every other full rotation is reversed, so no system always follows the same one.
 */
function orderOf<T>(systems: readonly T[], repetition: number): T[] {
  const count = systems.length;
  const shift = repetition % count;
  const rotated = [...systems.slice(shift), ...systems.slice(0, shift)];
  return count > 2 && Math.floor(repetition / count) % 2 === 1 ? rotated.reverse() : rotated;
}

function ratioWithInterval(
  mine: HandlerRunSample[],
  theirs: HandlerRunSample[],
  pick: (s: HandlerRunSample) => number,
) {
  const ratios = pairedRatios(mine.map(pick), theirs.map(pick)) ?? [];
  return { ratio: median(ratios), ...medianInterval(ratios) };
}

/** A baseline's cell: its medians, its ratios to the peer, today's ÷ its own (with intervals). */
function baselineCell(base: HandlerRunSample[], lf: HandlerRunSample[], pe: HandlerRunSample[]): HandlerBaselineCell {
  const jobs = (sample: HandlerRunSample) => sample.jobsPerSecond;
  const cpu = (sample: HandlerRunSample) => sample.cpuMsPerJob;
  return {
    summary: summarise(base),
    jobsPerSecondRatio: pairedRatio(base.map(jobs), pe.map(jobs)) ?? Number.NaN,
    cpuPerJobRatio: pairedRatio(base.map(cpu), pe.map(cpu)) ?? Number.NaN,
    todayOverBaseline: {
      jobsPerSecond: ratioWithInterval(lf, base, jobs),
      cpuPerJob: ratioWithInterval(lf, base, cpu),
    },
  };
}

/**
 * Per mode and concurrency: a warm-up of each system, then paired runs, the order changing every repetition;
 * medians of each. The baseline (when given) runs in its modes only, in the same repetitions.
 */
async function measure(): Promise<HandlerBatchRow[]> {
  const rows: HandlerBatchRow[] = [];
  for (const mode of config.modes) {
    const withBaseline = config.systems.baseline !== undefined && config.baselineModes.includes(mode);
    const systems: HandlerSystem[] = withBaseline ? ['leasefence', 'baseline', 'peer'] : ['leasefence', 'peer'];
    const loaded = new Map<HandlerSystem, LoadedSystem>();
    for (const system of systems) loaded.set(system, await loadSystem(system, mode));
    for (const concurrency of config.concurrencies) {
      for (const system of systems)
        await timedRun(loaded.get(system) as LoadedSystem, concurrency, config.warmupBatches);
      const samples = new Map<HandlerSystem, HandlerRunSample[]>(systems.map((system) => [system, []]));
      for (let repetition = 0; repetition < config.repetitions; repetition += 1) {
        for (const system of orderOf(systems, repetition)) {
          samples
            .get(system)
            ?.push(await timedRun(loaded.get(system) as LoadedSystem, concurrency, config.batchesPerRun));
        }
      }
      const lf = samples.get('leasefence') ?? [];
      const pe = samples.get('peer') ?? [];
      const paired = (pick: (sample: HandlerRunSample) => number) =>
        pairedRatio(lf.map(pick), pe.map(pick)) ?? Number.NaN;
      const base = samples.get('baseline');
      rows.push({
        mode,
        concurrency,
        leasefence: summarise(lf),
        peer: summarise(pe),
        jobsPerSecondRatio: paired((sample) => sample.jobsPerSecond),
        cpuPerJobRatio: paired((sample) => sample.cpuMsPerJob),
        warmupJobs: config.warmupBatches * config.batchSize,
        ...(base ? { baseline: baselineCell(base, lf, pe) } : {}),
      });
    }
  }
  return rows;
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
try {
  const rows = await measure();
  process.stdout.write(`${JSON.stringify({ figure: 'handler-batches', rows })}\n`);
} finally {
  await engine.stop();
}
