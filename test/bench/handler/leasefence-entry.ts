import { createSqsWorkerHandler, defineJob } from '../../../lib/index.js';
import {
  BENCH_JOB_TYPE,
  type BenchPayload,
  benchPayloadSchema,
  resolveBenchRef,
  sideEffectKey,
} from '../support/jobs.js';

// A user's worker entry, as the FencedJobQueue construct bundles it (workerEntry): the benchmark job under
// createSqsWorkerHandler, configured from the environment the construct sets. With BENCH_RECORDS_TABLE the job
// writes one record it owns with a fenced put (`ctx.records.put`: the write carries the fence in its condition).
// Built by test/bench/scenarios/handler-batches.ts with the construct's esbuild settings; never deployed.

const recordsTable = process.env.BENCH_RECORDS_TABLE;

const benchJob = defineJob<BenchPayload>({
  type: BENCH_JOB_TYPE,
  version: 1,
  target: 'B',
  payload: benchPayloadSchema,
  leaseMs: 30_000,
  run: async (ctx) => {
    if (recordsTable) {
      const ref = { tableName: recordsTable, key: sideEffectKey(ctx.identity) };
      await ctx.records.put(ref, { writtenBy: 'leasefence', amountCents: ctx.payload.amountCents });
    }
    return { outcomeCode: 'done' };
  },
});

/** The Lambda entry point, as a user writes it (payloadRef bodies are recomputed from the ref: no I/O). */
export const handler = createSqsWorkerHandler({
  jobs: [benchJob],
  payloadResolver: async (ref) => resolveBenchRef(ref),
});
