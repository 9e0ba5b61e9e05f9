import { createSqsWorkerHandler } from '../lib/lambda/sqs-worker-handler.js';
import { examplesTableFromEnvironment } from './jobs/examples-table.js';
import { createExampleJobs } from './jobs/index.js';

// Wiring only: the project's SQS worker Lambda running the example job types. A user's worker entry has the
// same shape with their own job definitions (see infra/README.md).
export const handler = createSqsWorkerHandler({ jobs: createExampleJobs(examplesTableFromEnvironment()) });
