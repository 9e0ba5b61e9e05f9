import { examplesTableFromEnvironment } from '../../../../examples/jobs/examples-table.js';
import { createExampleJobs } from '../../../../examples/jobs/index.js';
import { createSqsWorkerHandler } from '../../../../lib/lambda/sqs-worker-handler.js';

// Init stage 1 (support/init-stages.ts): the project worker's modules loaded and evaluated, nothing built.
export const loaded = [createSqsWorkerHandler, examplesTableFromEnvironment, createExampleJobs];
