import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../../../lib/clock.js';
import { payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { defineJob, type JobDefinition, JobRegistry } from '../../../lib/job-definition.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { silentTelemetry } from '../../../lib/telemetry.js';
import { WorkerRuntime } from '../../../lib/worker/worker-runtime.js';
import { countRequests, type RequestCounter } from '../../support/request-counter.js';
import type { BenchEngine, LeasefenceTables } from './bench-engine.js';
import { type ConditionFailureCounter, countConditionFailures } from './condition-failures.js';
import {
  BENCH_JOB_TYPE,
  type BenchPayload,
  benchPayload,
  benchPayloadSchema,
  resolveBenchRef,
  sideEffectKey,
} from './jobs.js';

/** Hooks a scenario uses to pause a job between its claim and its side effect, and to count side effects. */
interface JobHooks {
  /** Awaited after the claim and the payload check, before the side effect. */
  beforeEffect?: (identity: JobIdentity) => Promise<void>;
  /** Called once the side-effect write returned success (the effect landed). */
  onEffect?: (identity: JobIdentity) => void;
}

/** What one leasefence worker ("Lambda container") is built from. */
interface LeasefenceWorkerOptions {
  engine: BenchEngine;
  tables: LeasefenceTables;
  /** Table of side-effect records; absent = protocol only (the job writes nothing of its own). */
  sideEffectTable?: string;
  /** How the job writes its record: a fenced update (`ctx.records.write`, default) or a fenced whole-record put. */
  sideEffectWrite?: 'update' | 'put';
  clock?: Clock;
  workerId?: string;
  hooks?: JobHooks;
}

/** A worker runtime on its own counted client, as the SQS handler would build it (minus SQS and logging). */
interface LeasefenceWorker {
  readonly runtime: WorkerRuntime;
  readonly client: DynamoDBDocumentClient;
  readonly counter: RequestCounter;
  readonly conditionFailures: ConditionFailureCounter;
  readonly workerId: string;
  /** Stores an inline body as the producer does (PayloadStore.put on this worker's client). */
  storeInlinePayload(identity: JobIdentity): Promise<void>;
}

/**
 * The benchmark job as a class B job: after the claim it optionally writes one record it owns through
 * `ctx.records.write`, so the write carries the fence (`writer_epoch < fence`) inside its own condition.
 */
function benchJob(
  workerId: string,
  sideEffect: { table: string; write: 'update' | 'put' } | undefined,
  hooks: JobHooks,
): JobDefinition<BenchPayload> {
  return defineJob<BenchPayload>({
    type: BENCH_JOB_TYPE,
    version: 1,
    target: 'B',
    payload: benchPayloadSchema,
    leaseMs: 30_000,
    run: async (ctx) => {
      await hooks.beforeEffect?.(ctx.identity);
      if (sideEffect !== undefined) {
        const ref = { tableName: sideEffect.table, key: sideEffectKey(ctx.identity) };
        const record = { writtenBy: workerId, amountCents: ctx.payload.amountCents };
        if (sideEffect.write === 'put') await ctx.records.put(ref, record);
        else await ctx.records.write(ref, { set: record });
        hooks.onEffect?.(ctx.identity);
      }
      return { outcomeCode: 'done' };
    },
  });
}

/** Builds one leasefence worker with its own DocumentClient (made as the deployed handlers make theirs) and request counter. */
function createLeasefenceWorker(options: LeasefenceWorkerOptions): LeasefenceWorker {
  // Made as lib/lambda/clients.ts makes the handlers' client (the SDK's defaults, as the peer's).
  const client = options.engine.documentClient();
  const clock = options.clock ?? systemClock;
  const workerId = options.workerId ?? 'bench-worker';
  const store = new WorkItemStore({ client, tableName: options.tables.jobsTable, clock });
  const payloads = new PayloadStore(client, options.tables.payloadsTable, clock);
  const sideEffect =
    options.sideEffectTable !== undefined
      ? { table: options.sideEffectTable, write: options.sideEffectWrite ?? 'update' }
      : undefined;
  const job = benchJob(workerId, sideEffect, options.hooks ?? {});
  const runtime = new WorkerRuntime({
    store,
    client,
    registry: new JobRegistry([job]),
    payloads,
    payloadResolver: async (ref) => resolveBenchRef(ref),
    telemetry: silentTelemetry,
    workerId,
  });
  return {
    runtime,
    client,
    counter: countRequests(client),
    conditionFailures: countConditionFailures(client),
    workerId,
    storeInlinePayload: async (identity) => {
      const body = benchPayload(identity.operationId);
      await payloads.put(identity, body, payloadHash(body));
    },
  };
}

export { createLeasefenceWorker, type JobHooks, type LeasefenceWorker, type LeasefenceWorkerOptions };
