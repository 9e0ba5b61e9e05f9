import type * as core from 'zod/v4/core';
import { defineJob } from '../../../lib/job-definition.js';
import { createSqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { BENCH_JOB_TYPE, type BenchPayload, resolveBenchRef } from '../support/bench-payload.js';

/**
 * The SQS worker handler the construct deploys (createSqsWorkerHandler) running the benchmark job with `payload`
 * as its schema, which like the peer's record handler only returns an outcome. Each entry (leasefence-handler.ts:
 * zod classic, leasefence-handler-mini.ts: zod/mini) passes its own schema, so figure 5 measures both.
 */
function benchWorkerHandler(payload: core.$ZodType<BenchPayload>) {
  const benchJob = defineJob<BenchPayload>({
    type: BENCH_JOB_TYPE,
    version: 1,
    target: 'B',
    payload,
    run: async () => ({ outcomeCode: 'done' }),
  });
  return createSqsWorkerHandler({ jobs: [benchJob], payloadResolver: async (ref) => resolveBenchRef(ref) });
}

export { benchWorkerHandler };
