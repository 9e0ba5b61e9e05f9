import type { SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';
import { pollOnce } from '../../../infra/local/sqs-event-source.js';
import type { LeasefenceConfig } from '../../../lib/config.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createSqsWorkerHandler, type SqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { MetricName } from '../../../lib/metric-names.js';
import { RetentionDays } from '../../../lib/rules.js';
import { jobsTableDefinition, payloadsTableDefinition } from '../../../lib/store/table.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import { createTestQueue } from '../../support/engine.js';
import type { BenchEngine, LeasefenceTables } from '../support/bench-engine.js';
import { tableShape } from '../support/capacity.js';
import { recordCapacity } from '../support/capacity-recorder.js';
import { sleep } from '../support/gate.js';
import { nowMs, percentile } from '../support/stats.js';

/*
 * Figure 11 (issue #42): a noisy tenant floods the queue, a quiet tenant sends a few jobs behind it, and a fixed pool
 * of consumers (Lambda's concurrency, one record per invocation) works through them on dynalite and fauxqs, three
 * ways: no limits, a per-tenant limit, priorities (quiet urgent, noisy bulk). The same pool, the same job (a sleep of
 * `jobMs`), the same backlog in each; every job's wait (enqueue to the start of `run`) and every concurrent run per
 * tenant is counted.
 */

const NOISY = 'noisy';
const QUIET = 'quiet';
const UNLIMITED_TYPE = 'flow-bench';
const LIMITED_TYPE = 'flow-bench-limited';
/** A waiting job's own re-check: far away, so every wait in the figure ends by a freed slot's wake-up. */
const RECHECK_MS = 900_000;
/** No job started for this long: the run stops and reports what did not run (never waits forever). */
const STALL_MS = 30_000;

type FlowMode = 'no limits' | 'per-tenant limit' | 'priorities';

/** The highest number of one tenant's jobs seen running at once, against its limit (none: unlimited). */
interface KeyConcurrency {
  tenantId: string;
  limit: number | undefined;
  highest: number;
}

/** One mode of the figure: the quiet tenant's waits and what was counted on the way. */
interface FlowModeRow {
  mode: FlowMode;
  quietWaitP50Ms: number;
  quietWaitP99Ms: number;
  noisyWaitP50Ms: number;
  /** Jobs sent, and jobs whose `run` started at least once. */
  sent: number;
  started: number;
  /** `run` starts beyond the first per job (none expected: a limit never makes a job run twice). */
  duplicateRuns: number;
  perKey: KeyConcurrency[];
  /** Slots taken over from a holder whose lease had expired (ConcurrencySlotRegranted, summed over the pool). */
  regranted: number;
  /** Times a job found its limit full and went back to queued (ConcurrencyWaits). */
  concurrencyWaits: number;
  seconds: number;
}

/** Billed units per job of one worker running jobs one at a time, without and with a per-tenant limit. */
interface FlowUnits {
  jobs: number;
  unlimited: { wru: number; rru: number };
  limited: { wru: number; rru: number };
}

/** Figure 11. */
interface FlowControlReport {
  noisyJobs: number;
  quietJobs: number;
  pool: number;
  /** Of the pool, the consumers of the bulk lane in the priorities mode (the construct's `bulkMaxConcurrency`). */
  bulkConsumers: number;
  perTenantLimit: number;
  jobMs: number;
  rows: FlowModeRow[];
  units: FlowUnits;
}

interface FlowOptions {
  /** An SQS client on fauxqs, and the endpoint the workers reach it at (their wake-ups). */
  sqs: SQSClient;
  sqsEndpoint: string;
  noisyJobs: number;
  quietJobs: number;
  pool: number;
  bulkConsumers: number;
  perTenantLimit: number;
  jobMs: number;
  /** Jobs of each kind in the units measurement (one worker, one job at a time). */
  unitJobs: number;
}

const payload = z.strictObject({ n: z.number() });

/** What the jobs of one run saw: first start per operation, runs per operation, running and highest per tenant. */
class Observer {
  readonly startedAt = new Map<string, number>();
  readonly runs = new Map<string, number>();
  private readonly running = new Map<string, number>();
  readonly highest = new Map<string, number>();
  lastStart = nowMs();

  async run(tenantId: string, operationId: string, jobMs: number): Promise<void> {
    this.runs.set(operationId, (this.runs.get(operationId) ?? 0) + 1);
    if (!this.startedAt.has(operationId)) this.startedAt.set(operationId, nowMs());
    this.lastStart = nowMs();
    const now = (this.running.get(tenantId) ?? 0) + 1;
    this.running.set(tenantId, now);
    this.highest.set(tenantId, Math.max(this.highest.get(tenantId) ?? 0, now));
    try {
      await sleep(jobMs);
    } finally {
      this.running.set(tenantId, (this.running.get(tenantId) ?? 1) - 1);
    }
  }
}

function benchJobs(observer: () => Observer, perTenantLimit: number, jobMs: number) {
  const run = async (ctx: { identity: { tenantId: string; operationId: string } }) => {
    await observer().run(ctx.identity.tenantId, ctx.identity.operationId, jobMs);
    return { outcomeCode: 'done' };
  };
  const common = { version: 1, target: 'B', payload, leaseMs: 30_000, run } as const;
  return [
    defineJob({ ...common, type: UNLIMITED_TYPE }),
    defineJob({
      ...common,
      type: LIMITED_TYPE,
      flow: { concurrency: { perTenant: perTenantLimit, recheckMs: RECHECK_MS } },
    }),
  ];
}

/** Tables, both lanes' queues and the configuration every worker of the figure shares. */
interface FlowSetup {
  tables: LeasefenceTables;
  queueUrl: string;
  bulkQueueUrl: string;
  config: LeasefenceConfig;
}

async function setUp(engine: BenchEngine, options: FlowOptions, prefix: string): Promise<FlowSetup> {
  const tables = await engine.createLeasefenceTables(prefix);
  const jobs = await createTestQueue(options.sqs, `${prefix}-urgent`, { maxReceiveCount: 1_000 });
  const bulk = await createTestQueue(options.sqs, `${prefix}-bulk`, { maxReceiveCount: 1_000 });
  const config: LeasefenceConfig = {
    jobsTable: tables.jobsTable,
    payloadsTable: tables.payloadsTable,
    queueUrl: jobs.queueUrl,
    bulkQueueUrl: bulk.queueUrl,
    deadLetterQueueUrl: jobs.dlqUrl,
    deadlineShards: 8,
    payloadRetentionDays: RetentionDays.default,
    dynamodbEndpoint: engine.endpoint,
    sqsEndpoint: options.sqsEndpoint,
  };
  return { tables, queueUrl: jobs.queueUrl, bulkQueueUrl: bulk.queueUrl, config };
}

type Worker = SqsWorkerHandler & { telemetry: ReturnType<typeof countingTelemetry> };

function worker(setup: FlowSetup, jobs: ReturnType<typeof benchJobs>, index: number): Worker {
  const telemetry = countingTelemetry();
  const handler = createSqsWorkerHandler({
    jobs,
    config: setup.config,
    telemetry,
    workerId: `flow-${index}`,
    heartbeatIntervalMs: 0,
  });
  return Object.assign(handler, { telemetry });
}

/** Sends `count` jobs of one tenant, 16 at a time, noting when each was sent. */
async function sendAll(
  setup: FlowSetup,
  sqs: SQSClient,
  send: { tenantId: string; count: number; jobType: string; priority: 'urgent' | 'bulk' },
  sentAt: Map<string, number>,
): Promise<void> {
  const deps = { sqs, queueUrl: setup.queueUrl, bulkQueueUrl: setup.bulkQueueUrl };
  let next = 0;
  const sender = async () => {
    for (let index = next++; index < send.count; index = next++) {
      const operationId = `${send.tenantId}-${index}`;
      sentAt.set(operationId, nowMs());
      await sendJob(deps, {
        tenantId: send.tenantId,
        operationId,
        jobType: send.jobType,
        payload: { n: index },
        carryBody: true,
        priority: send.priority,
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, sender));
}

/** The pool: each consumer one Lambda container taking one record per invocation, until `done` says stop. */
async function runPool(
  sqs: SQSClient,
  lanes: ReadonlyArray<{ queueUrl: string; handler: Worker }>,
  done: () => boolean,
): Promise<void> {
  await Promise.all(
    lanes.map(async ({ queueUrl, handler }) => {
      while (!done()) await pollOnce({ sqs, queueUrl, handler, batchSize: 1, waitTimeSeconds: 1 });
    }),
  );
}

function waitsOf(observer: Observer, sentAt: ReadonlyMap<string, number>, tenantId: string): number[] {
  const waits: number[] = [];
  for (const [operationId, sent] of sentAt) {
    const started = observer.startedAt.get(operationId);
    if (operationId.startsWith(`${tenantId}-`) && started !== undefined) waits.push(started - sent);
  }
  return waits;
}

function sumOf(workers: readonly Worker[], metric: string): number {
  return workers.reduce((total, handler) => total + (handler.telemetry.counts[metric] ?? 0), 0);
}

/** One mode: the noisy backlog first, then the quiet jobs, then the pool works until every job started once. */
async function runMode(engine: BenchEngine, options: FlowOptions, mode: FlowMode): Promise<FlowModeRow> {
  const observer = new Observer();
  const setup = await setUp(engine, options, `flow-${mode.split(' ')[0]}`);
  const jobs = benchJobs(() => observer, options.perTenantLimit, options.jobMs);
  const jobType = mode === 'per-tenant limit' ? LIMITED_TYPE : UNLIMITED_TYPE;
  const sentAt = new Map<string, number>();
  const noisyLane = mode === 'priorities' ? 'bulk' : 'urgent';
  await sendAll(
    setup,
    options.sqs,
    { tenantId: NOISY, count: options.noisyJobs, jobType, priority: noisyLane },
    sentAt,
  );
  await sendAll(setup, options.sqs, { tenantId: QUIET, count: options.quietJobs, jobType, priority: 'urgent' }, sentAt);
  const workers = Array.from({ length: options.pool }, (_, index) => worker(setup, jobs, index));
  const bulkConsumers = mode === 'priorities' ? options.bulkConsumers : 0;
  const lanes = workers.map((handler, index) => ({
    handler,
    queueUrl: index < bulkConsumers ? setup.bulkQueueUrl : setup.queueUrl,
  }));
  const total = options.noisyJobs + options.quietJobs;
  const started = nowMs();
  observer.lastStart = started;
  await runPool(options.sqs, lanes, () => observer.startedAt.size >= total || nowMs() - observer.lastStart > STALL_MS);
  const seconds = (nowMs() - started) / 1000;
  for (const handler of workers) handler.client.destroy();
  const quiet = waitsOf(observer, sentAt, QUIET);
  const limit = mode === 'per-tenant limit' ? options.perTenantLimit : undefined;
  return {
    mode,
    quietWaitP50Ms: percentile(quiet, 50),
    quietWaitP99Ms: percentile(quiet, 99),
    noisyWaitP50Ms: percentile(waitsOf(observer, sentAt, NOISY), 50),
    sent: sentAt.size,
    started: observer.startedAt.size,
    duplicateRuns: [...observer.runs.values()].reduce((extra, runs) => extra + runs - 1, 0),
    perKey: [NOISY, QUIET].map((tenantId) => ({ tenantId, limit, highest: observer.highest.get(tenantId) ?? 0 })),
    regranted: sumOf(workers, MetricName.ConcurrencySlotRegranted),
    concurrencyWaits: sumOf(workers, MetricName.ConcurrencyWaits),
    seconds,
  };
}

/**
 * Units per job of one worker running one job at a time (the accountant needs requests that do not race): the same
 * jobs without a limit and with the per-tenant limit, which they never fill. The difference is what a limit costs.
 */
async function measureUnits(engine: BenchEngine, options: FlowOptions): Promise<FlowUnits> {
  const observer = new Observer();
  const setup = await setUp(engine, options, 'flow-units');
  const handler = worker(
    setup,
    benchJobs(() => observer, options.perTenantLimit, 0),
    0,
  );
  const shapes = new Map([
    [setup.tables.jobsTable, tableShape(jobsTableDefinition(setup.tables.jobsTable))],
    [setup.tables.payloadsTable, tableShape(payloadsTableDefinition(setup.tables.payloadsTable))],
  ]);
  const recorder = recordCapacity(handler.client, engine.rawClient(), shapes, { documentClient: true });
  const perJob = async (jobType: string) => {
    const sentAt = new Map<string, number>();
    await sendAll(
      setup,
      options.sqs,
      { tenantId: jobType, count: options.unitJobs, jobType, priority: 'urgent' },
      sentAt,
    );
    const before = observer.startedAt.size;
    recorder.reset();
    while (observer.startedAt.size < before + options.unitJobs) {
      await pollOnce({ sqs: options.sqs, queueUrl: setup.queueUrl, handler, batchSize: 1, waitTimeSeconds: 1 });
    }
    const totals = recorder.totals();
    return { wru: totals.wru / options.unitJobs, rru: totals.rru / options.unitJobs };
  };
  try {
    const unlimited = await perJob(UNLIMITED_TYPE);
    const limited = await perJob(LIMITED_TYPE);
    return { jobs: options.unitJobs, unlimited, limited };
  } finally {
    recorder.detach();
    handler.client.destroy();
  }
}

/** Figure 11: the three modes on one engine, then the units a limit adds per job. */
async function measureFlowControl(engine: BenchEngine, options: FlowOptions): Promise<FlowControlReport> {
  const rows: FlowModeRow[] = [];
  for (const mode of ['no limits', 'per-tenant limit', 'priorities'] as const) {
    rows.push(await runMode(engine, options, mode));
  }
  return {
    noisyJobs: options.noisyJobs,
    quietJobs: options.quietJobs,
    pool: options.pool,
    bulkConsumers: options.bulkConsumers,
    perTenantLimit: options.perTenantLimit,
    jobMs: options.jobMs,
    rows,
    units: await measureUnits(engine, options),
  };
}

export {
  type FlowControlReport,
  type FlowMode,
  type FlowModeRow,
  type FlowOptions,
  type FlowUnits,
  type KeyConcurrency,
  measureFlowControl,
  STALL_MS,
};
