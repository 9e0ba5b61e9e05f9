import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AdminDeps } from '../../lib/admin/deps.js';
import { systemClock } from '../../lib/clock.js';
import type { LeasefenceConfig } from '../../lib/config.js';
import { createDocumentClient } from '../../lib/document-client.js';
import { isLeasefenceError } from '../../lib/errors.js';
import { parseIdentity } from '../../lib/identity.js';
import type { AnyJobDefinition } from '../../lib/job-definition.js';
import { createSqsWorkerHandler } from '../../lib/lambda/sqs-worker-handler.js';
import { RetentionDays } from '../../lib/rules.js';
import { createSqsClient } from '../../lib/sqs-client.js';
import { DEFAULT_DEADLINE_SHARDS, OperatorStore, PayloadStore } from '../../lib/store/index.js';
import { runbookSection } from '../cli/runbook.js';
import { ConsoleUnavailableError } from '../console/assets.js';
import { startConsoleServer } from '../console/server.js';
import { localPlanSource } from '../testing/fault-plan-doors.js';
import { startAdminServer } from './admin-server.js';
import { startDynalite, startSqsEngine } from './engines.js';
import { StackAlreadyRunningError } from './errors.js';
import { EXAMPLE_JOBS_SOURCE, exampleJobs, type LoadedJobs } from './jobs-module.js';
import { DEFAULT_LOCAL_ACTOR } from './local-actor.js';
import { QueuePollers } from './pollers.js';
import { listenOn, type PortSetting } from './ports.js';
import { ensureLocalResources, type LocalResources } from './resources.js';
import { ScheduleTimer } from './schedule-timer.js';
import { schedulesOf } from './schedules-module.js';
import { clearSharedCounts, sharedCounts } from './shared-metrics.js';
import { type StackTelemetry, stackTelemetry } from './stack-telemetry.js';
import { readLiveStackState, removeStackState, type StackState, stateFilePath, writeStackState } from './state-file.js';
import { SweeperTimer } from './sweeper-timer.js';

/** The local stack's fault plan file, in its folder (with `faultInjection`). */
const FAULT_PLAN_FILE = 'fault-plan.json';

/** How to run the local stack. */
interface LocalStackOptions {
  /** Folder for the data (unless `memory`) and the state file. */
  dir: string;
  /** Keep nothing on disk: dynalite in memory. */
  memory: boolean;
  ports: { dynamodb: PortSetting; sqs: PortSetting; admin: PortSetting; console: PortSetting };
  /**
   * Write shards of the deadline index (default DEFAULT_DEADLINE_SHARDS): worker, sweeper, admin API and console
   * use it, and the state file carries it to the CLI. Keep it with the data: rows filed under another count sit
   * in shards the sweeper does not read.
   */
  deadlineShards?: number;
  /** Concurrent queue pollers, each one worker "container". */
  pollers: number;
  sweepIntervalMs: number;
  verbose: boolean;
  /** Job types switched off: their messages are acknowledged and their rows wait queued until switched on. */
  disabledJobTypes?: readonly string[];
  /** The job types the worker runs (default: the project's example jobs). Their tables are created if missing. */
  jobs?: LoadedJobs;
  /** Write `<dir>/stack.json` so the CLI finds the stack (off for a stack embedded in one CLI command). */
  writeStateFile: boolean;
  log: (line: string) => void;
  /**
   * Honour a stack check's fault plan (`<dir>/fault-plan.json`) for its `lfcheck-` tenants, as a deployed stack
   * does with the construct's faultInjection prop. Off by default: the worker then never loads the fault layer.
   */
  faultInjection?: boolean;
}

/** A running local stack: where everything is, the clients it uses, and how to stop it. */
interface RunningLocalStack {
  state: StackState;
  resources: LocalResources & { createdTables: string[] };
  /** Folder of the on-disk data; undefined in memory. */
  dataDir: string | undefined;
  stateFile: string | undefined;
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  store: OperatorStore;
  telemetry: StackTelemetry;
  /** The jobs module the worker runs (the example jobs unless one was given) and the definitions built from it. */
  jobs: { module: LoadedJobs; definitions: readonly AnyJobDefinition[] };
  /** Why the console did not start, when it did not (the stack runs without it); undefined when it runs. */
  consoleProblem: string | undefined;
  /** Stops pollers (letting batches in flight finish), sweeper, admin API, console and engines; idempotent. */
  stop(): Promise<void>;
}

/** The sum of two sets of counts, by metric. */
function addCounts(own: Readonly<Record<string, number>>, other: Readonly<Record<string, number>>) {
  const sum: Record<string, number> = { ...own };
  for (const [metric, value] of Object.entries(other)) sum[metric] = (sum[metric] ?? 0) + value;
  return sum;
}

/** Runs cleanups newest first; every one runs even when an earlier one fails. */
async function unwind(cleanups: Array<() => Promise<void>>): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Starts the whole system on embedded engines: dynalite (on disk in `<dir>/dynamodb` unless `memory`) and
 * fauxqs on loopback; the tables and queues the CDK app deploys; the example worker polled like the Lambda
 * event source; the sweeper on a timer; the admin API and the operator console over HTTP. A taken port ▶ PortInUseError; a stack
 * already running on `dir` ▶ StackAlreadyRunningError. Anything started before a failure is stopped again.
 */
async function startLocalStack(options: LocalStackOptions): Promise<RunningLocalStack> {
  const dir = resolve(options.dir);
  const running = await readLiveStackState(dir);
  if (running) throw new StackAlreadyRunningError(running.pid, stateFilePath(dir));
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const dataDir = options.memory ? undefined : join(dir, 'dynamodb');
    if (dataDir) await mkdir(dataDir, { recursive: true });
    const dynamo = await listenOn(options.ports.dynamodb, (port) =>
      startDynalite({ port, ...(dataDir ? { path: dataDir } : {}) }),
    );
    cleanups.push(() => dynamo.stop());
    const sqsEngine = await listenOn(options.ports.sqs, (port) => startSqsEngine({ port }));
    cleanups.push(() => sqsEngine.stop());
    const client = createDocumentClient({ endpoint: dynamo.endpoint });
    const sqs = createSqsClient({ endpoint: sqsEngine.endpoint });
    cleanups.push(async () => {
      client.destroy();
      sqs.destroy();
    });
    const jobsSource = options.jobs ?? (await exampleJobs());
    const resources = await ensureLocalResources(client, sqs, jobsSource.tables);
    const config: LeasefenceConfig = {
      jobsTable: resources.jobsTable,
      payloadsTable: resources.payloadsTable,
      queueUrl: resources.queueUrl,
      deadLetterQueueUrl: resources.deadLetterQueueUrl,
      deadlineShards: options.deadlineShards ?? DEFAULT_DEADLINE_SHARDS,
      dynamodbEndpoint: dynamo.endpoint,
      sqsEndpoint: sqsEngine.endpoint,
      payloadRetentionDays: RetentionDays.default,
      disabledJobTypes: [...(options.disabledJobTypes ?? [])],
    };
    const store = new OperatorStore({ client, tableName: config.jobsTable, deadlineShards: config.deadlineShards });
    const telemetry = stackTelemetry(options.log, options.verbose, (identity) => store.get(parseIdentity(identity)));
    const startedAt = Date.now();
    // A stack others can find (state file) shares its counters with the worker processes beside it.
    const run = { pid: process.pid, startedAt: new Date(startedAt).toISOString() };
    if (options.writeStateFile) {
      await clearSharedCounts(dir);
      cleanups.push(() => clearSharedCounts(dir));
    }
    const counts = async () =>
      options.writeStateFile ? addCounts(telemetry.counts, await sharedCounts(dir, run)) : { ...telemetry.counts };
    const adminDeps: AdminDeps = {
      store,
      sqs,
      queueUrl: resources.queueUrl,
      deadLetterQueueUrl: resources.deadLetterQueueUrl,
      payloadsTable: resources.payloadsTable,
      dlqWaitTimeSeconds: 0,
      // The stack's shared counters feed the signals (and /health, for a console or CLI in another process).
      metrics: async () => ({ since: startedAt, counts: await counts() }),
    };
    const admin = await listenOn(options.ports.admin, (port) => startAdminServer(adminDeps, port));
    cleanups.push(() => admin.stop());
    const consoleTarget = {
      kind: 'local' as const,
      label: `local stack (pid ${process.pid})`,
      jobsTable: resources.jobsTable,
    };
    // The console's UI libraries are dependencies; should one be missing anyway (a broken install), the stack
    // runs without the console and says why.
    let consoleProblem: string | undefined;
    const jobs = jobsSource.build({ tables: resources.tableNames });
    const consoleContext = {
      target: consoleTarget,
      admin: adminDeps,
      actor: `${DEFAULT_LOCAL_ACTOR} (console)`,
      runbooks: Object.fromEntries(jobs.map((job) => [job.type, runbookSection(job)])),
      schedules: schedulesOf(jobsSource),
    };
    const operatorConsole = await listenOn(options.ports.console, (port) =>
      startConsoleServer(consoleContext, { port }),
    ).catch((error: unknown) => {
      if (!isLeasefenceError(error, ConsoleUnavailableError)) throw error;
      consoleProblem = error.message;
      options.log(`[console] not started: ${error.message}`);
      return undefined;
    });
    if (operatorConsole) cleanups.push(() => operatorConsole.stop());

    const faultPlan = options.faultInjection ? join(dir, FAULT_PLAN_FILE) : undefined;
    const handlers = Array.from({ length: options.pollers }, (_, index) =>
      createSqsWorkerHandler({
        jobs,
        config,
        telemetry,
        workerId: `local-worker-${index + 1}`,
        ...(faultPlan ? { faultPlan: localPlanSource(faultPlan) } : {}),
      }),
    );
    const pollers = new QueuePollers({
      sqs,
      queueUrl: resources.queueUrl,
      handlers,
      onError: (error) => options.log(`[worker] a batch failed and will be redelivered: ${describeError(error)}`),
    });
    pollers.start();
    cleanups.push(() => pollers.stop());

    const scheduleTimer = localSchedules(jobsSource, { client, sqs, store, config, jobs }, options.log);
    scheduleTimer.start();
    cleanups.push(() => scheduleTimer.stop());

    const swept = { 'swept to unknown': 0, 're-signalled': 0 };
    const sweeper = new SweeperTimer({
      store,
      sqs,
      queueUrl: resources.queueUrl,
      intervalMs: options.sweepIntervalMs,
      onSweep: (summary) => {
        swept['swept to unknown'] += summary.sweptToUnknown;
        swept['re-signalled'] += summary.resignalled;
        const line = telemetry.statusLine(swept);
        if (line) options.log(`[status] ${line}`);
      },
      onError: (error) => options.log(`[sweeper] run failed (the next run starts over): ${describeError(error)}`),
    });
    sweeper.start();
    cleanups.push(() => sweeper.stop());

    const state: StackState = {
      version: 1,
      pid: process.pid,
      startedAt: run.startedAt,
      memory: options.memory,
      region: 'us-east-1',
      endpoints: {
        dynamodb: dynamo.endpoint,
        sqs: sqsEngine.endpoint,
        admin: admin.url,
        ...(operatorConsole ? { console: operatorConsole.url } : {}),
      },
      tables: {
        jobs: resources.jobsTable,
        payloads: resources.payloadsTable,
        ...(jobsSource.source === EXAMPLE_JOBS_SOURCE ? { examples: String(jobsSource.exports.EXAMPLES_TABLE) } : {}),
      },
      queues: { jobs: resources.queueUrl, deadLetter: resources.deadLetterQueueUrl },
      settings: { deadlineShards: config.deadlineShards },
      jobs: { source: jobsSource.source, types: jobs.map((job) => job.type) },
      ...(faultPlan ? { faultPlan } : {}),
    };
    const stateFile = options.writeStateFile ? await writeStackState(dir, state) : undefined;
    if (stateFile) cleanups.push(() => removeStackState(dir, process.pid));
    let stopping: Promise<void> | undefined;
    return {
      state,
      resources,
      dataDir,
      stateFile,
      client,
      sqs,
      store,
      telemetry,
      jobs: { module: jobsSource, definitions: jobs },
      consoleProblem,
      stop: () => {
        stopping ??= unwind(cleanups);
        return stopping;
      },
    };
  } catch (error) {
    await unwind(cleanups);
    throw error;
  }
}

/**
 * The jobs module's schedules on a timer (ScheduleTimer): each tick enqueued as the construct's tick function does,
 * with the module's job definitions (their attempt budgets) on the stack's wall clock.
 */
function localSchedules(
  source: LoadedJobs,
  stack: {
    client: DynamoDBDocumentClient;
    sqs: SQSClient;
    store: OperatorStore;
    config: LeasefenceConfig;
    jobs: readonly AnyJobDefinition[];
  },
  log: (line: string) => void,
): ScheduleTimer {
  const { client, sqs, store, config, jobs } = stack;
  const producer = {
    sqs,
    queueUrl: config.queueUrl ?? '',
    payloads: new PayloadStore(client, config.payloadsTable, systemClock),
    delayed: { client, jobsTable: config.jobsTable, jobs, deadlineShards: config.deadlineShards, clock: systemClock },
  };
  return new ScheduleTimer({
    deps: { producer, store, schedules: schedulesOf(source), clock: systemClock },
    onTick: (name, outcome) =>
      log(
        `[schedules] ${name}: ${outcome.outcome}${'missed' in outcome && outcome.missed > 0 ? ` (${outcome.missed} recent ticks missed)` : ''}`,
      ),
    onError: (name, error) => log(`[schedules] ${name}: tick failed (${describeError(error)})`),
  });
}

export { type LocalStackOptions, type RunningLocalStack, startLocalStack };
