import { mkdirSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { FUNCTION_NODE_OPTIONS } from '../../../infra/construct/functions.js';
import { EnvironmentVariable } from '../../../lib/config.js';
import { METRIC_NAMESPACE } from '../../../lib/metric-names.js';
import { DEFAULT_DEADLINE_SHARDS } from '../../../lib/store/table.js';
import type { HandlerBatchRow, HandlerChildConfig } from '../handler/types.js';
import type { Baseline } from '../support/baseline.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { runJsonChild } from '../support/child-json.js';
import { constructBundling } from '../support/construct-bundling.js';
import { describeSplit, splitCpus, unpinEngine } from '../support/cpu-pinning.js';
import { runName } from '../support/jobs.js';

const HANDLER_DIR = fileURLToPath(new URL('../handler/', import.meta.url));
/**
 * Inside the repository, so the SDK-external bundles import the SDK from node_modules, as Lambda's runtime provides
 * it; a directory per run, since node_modules may be shared by several checkouts whose runs must not swap bundles.
 */
const CACHE_DIR = fileURLToPath(new URL('../../../node_modules/.cache/leasefence-bench/', import.meta.url));
/** Records per event: the construct's default batchSize, the most the event source puts in one event by default. */
const BATCH_SIZE = 10;

/**
 * Modes: protocol only, or each job writes one record (leasefence: a fenced put; the peer: a PutItem; the judged
 * mode). `fenced-record-quiet-logs` is the record mode with leasefence's Logger at WARN (`POWERTOOLS_LOG_LEVEL`),
 * reported only: what its INFO line per job costs as deployed.
 */
type HandlerMode = 'protocol' | 'fenced-record' | 'fenced-record-quiet-logs';

/** The mode the baseline runs in (the judged one: fencing on). */
const BASELINE_MODE: HandlerMode = 'fenced-record';

/** Sizes of the figure. */
interface HandlerBatchOptions {
  concurrencies: readonly number[];
  modes: readonly HandlerMode[];
  batchesPerRun: number;
  warmupBatches: number;
  repetitions: number;
  /** With `--baseline=<commit>`: that commit's bench worker runs beside the two others in the judged mode. */
  baseline?: Baseline;
}

/** The figure: rows, where the CPUs were, and the records each system's job wrote (counted on the table). */
interface HandlerBatchReport {
  rows: HandlerBatchRow[];
  cpuPinning: string;
  batchSize: number;
  /** Items in each system's records table after the run (every handled job of the record mode writes one). */
  recordsWritten: { leasefence: number; peer: number; baseline?: number };
  /** With a baseline: its commit and row name (`worker @ <short sha>`). */
  baseline?: { commit: string; label: string };
}

async function bundle(directory: string, entry: string, name: string, bundleAwsSdk: boolean): Promise<string> {
  const outfile = join(directory, `${name}.mjs`);
  const entryPoint = isAbsolute(entry) ? entry : join(HANDLER_DIR, entry);
  await build({ ...constructBundling(bundleAwsSdk), entryPoints: [entryPoint], outfile });
  return outfile;
}

/** `BENCH_CPU_PROFILE_DIR=dir`: the child writes a V8 CPU profile there (`node --cpu-prof`), for finding where time goes. */
function cpuProfileFlags(): string[] {
  const directory = process.env.BENCH_CPU_PROFILE_DIR;
  return directory ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : [];
}

async function countItems(engine: BenchEngine, tableName: string): Promise<number> {
  const client = engine.rawClient();
  let count = 0;
  let start: Record<string, never> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, Select: 'COUNT', ExclusiveStartKey: start }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey as typeof start;
  } while (start);
  client.destroy();
  return count;
}

/**
 * The end-to-end figure (issue #29 item 4): SQS events of ten records into the worker handler built exactly as
 * the construct builds it (a user's entry under createSqsWorkerHandler, esbuild with the construct's settings, the
 * AWS SDK external as by default, the construct's environment), against the peer's BatchProcessor +
 * makeIdempotent handler built the same way, both in one child process, the engine in its own.
 */
async function measureHandlerBatches(engine: BenchEngine, options: HandlerBatchOptions): Promise<HandlerBatchReport> {
  const directory = join(CACHE_DIR, runName('handler'));
  mkdirSync(directory, { recursive: true });
  const baseline = options.baseline;
  const [leasefenceBundle, peerBundle, childBundle, baselineBundle] = await Promise.all([
    bundle(directory, 'leasefence-entry.ts', 'leasefence-worker', false),
    bundle(directory, 'peer-entry.ts', 'peer-worker', false),
    bundle(directory, 'child.ts', 'handler-child', false),
    baseline ? bundle(directory, baseline.handlerEntry, `baseline-${baseline.short}-worker`, false) : undefined,
  ]);
  const tables = await engine.createLeasefenceTables('e2e');
  const idempotency = await engine.createKeyedTable('e2e-idempotency', 'id');
  const records = {
    leasefence: await engine.createKeyedTable('e2e-lf-records', 'pk'),
    peer: await engine.createKeyedTable('e2e-peer-records', 'pk'),
    baseline: baseline ? await engine.createKeyedTable('e2e-base-records', 'pk') : '',
  };
  const region = { AWS_REGION: 'us-east-1' };
  // What the construct gives the worker (infra/construct/fenced-job-queue.ts), local endpoints instead of AWS; the
  // queue is only used for a retry's wake-up, which no job here sends. No identifier key secret: outside Lambda
  // the handler hashes with the development key.
  const leasefenceEnvironment = {
    ...region,
    [EnvironmentVariable.jobsTable]: tables.jobsTable,
    [EnvironmentVariable.payloadsTable]: tables.payloadsTable,
    [EnvironmentVariable.queueUrl]: 'http://127.0.0.1:9/000000000000/bench-jobs',
    [EnvironmentVariable.deadLetterQueueUrl]: 'http://127.0.0.1:9/000000000000/bench-dlq',
    [EnvironmentVariable.deadlineShards]: String(DEFAULT_DEADLINE_SHARDS),
    [EnvironmentVariable.payloadRetentionDays]: '30',
    [EnvironmentVariable.dynamodbEndpoint]: engine.endpoint,
    POWERTOOLS_SERVICE_NAME: 'leasefence',
    POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
  };
  const peerEnvironment = { ...region, IDEMPOTENCY_TABLE: idempotency, BENCH_DYNAMODB_ENDPOINT: engine.endpoint };
  const modeEnvironment = (table: string, quiet: Record<string, string>) => ({
    protocol: {},
    'fenced-record': { BENCH_RECORDS_TABLE: table },
    'fenced-record-quiet-logs': { BENCH_RECORDS_TABLE: table, ...quiet },
  });
  const split = splitCpus(engine.enginePid);
  const config: HandlerChildConfig = {
    endpoint: engine.endpoint,
    ...(engine.enginePid !== undefined ? { enginePid: engine.enginePid } : {}),
    ...(split.pinned ? { workerCpus: split.worker } : {}),
    systems: {
      leasefence: {
        bundle: leasefenceBundle,
        environment: leasefenceEnvironment,
        modes: modeEnvironment(records.leasefence, { POWERTOOLS_LOG_LEVEL: 'WARN' }),
      },
      peer: { bundle: peerBundle, environment: peerEnvironment, modes: modeEnvironment(records.peer, {}) },
      // The baseline's worker on the same jobs tables (its own job identities) and its own records table.
      ...(baselineBundle
        ? {
            baseline: {
              bundle: baselineBundle,
              environment: leasefenceEnvironment,
              modes: modeEnvironment(records.baseline, { POWERTOOLS_LOG_LEVEL: 'WARN' }),
            },
          }
        : {}),
    },
    modes: [...options.modes],
    baselineModes: [BASELINE_MODE],
    concurrencies: [...options.concurrencies],
    batchSize: BATCH_SIZE,
    batchesPerRun: options.batchesPerRun,
    warmupBatches: options.warmupBatches,
    repetitions: options.repetitions,
  };
  try {
    const lines = await runJsonChild<{ figure?: string; rows?: HandlerBatchRow[] }>(
      childBundle,
      config as unknown as Record<string, unknown>,
      {
        name: 'handler figure',
        loader: 'none',
        nodeFlags: [...FUNCTION_NODE_OPTIONS.split(' '), ...cpuProfileFlags()],
        timeoutMs: 60 * 60_000,
      },
    );
    // The handlers log (Powertools Logger and EMF metrics) on stdout as in Lambda; the figure's line is tagged.
    const rows = lines.find((line) => line.figure === 'handler-batches')?.rows;
    if (!rows) throw new Error('handler figure child printed no rows');
    return {
      rows,
      cpuPinning: describeSplit(split),
      batchSize: BATCH_SIZE,
      recordsWritten: {
        leasefence: await countItems(engine, records.leasefence),
        peer: await countItems(engine, records.peer),
        ...(baseline ? { baseline: await countItems(engine, records.baseline) } : {}),
      },
      ...(baseline ? { baseline: { commit: baseline.commit, label: baseline.label } } : {}),
    };
  } finally {
    if (split.pinned && engine.enginePid !== undefined) unpinEngine(engine.enginePid);
    // A CPU profile's frames are resolved through the bundles' source maps: kept when one was written.
    if (!process.env.BENCH_CPU_PROFILE_DIR) rmSync(directory, { recursive: true, force: true });
  }
}

export { type HandlerBatchOptions, type HandlerBatchReport, type HandlerMode, measureHandlerBatches };
