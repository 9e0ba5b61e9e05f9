import { defineJob } from '../../../lib/job-definition.js';
import { createSqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { BENCH_JOB_TYPE, type BenchPayload, benchPayloadSchema, resolveBenchRef } from '../support/jobs.js';

// The leasefence side of figure 5's cold invocation: the SQS worker handler the construct deploys
// (createSqsWorkerHandler), running the benchmark job, which like the peer's record handler only returns an
// outcome. Bundled with the construct's esbuild settings; never deployed.

const benchJob = defineJob<BenchPayload>({
  type: BENCH_JOB_TYPE,
  version: 1,
  target: 'B',
  payload: benchPayloadSchema,
  run: async () => ({ outcomeCode: 'done' }),
});

/** The Lambda entry point: partial batch responses, one fenced claim and completion per record. */
export const handler = createSqsWorkerHandler({
  jobs: [benchJob],
  payloadResolver: async (ref) => resolveBenchRef(ref),
});
