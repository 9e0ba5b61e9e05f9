import { readConfig } from '../lib/config.js';
import { ConfigurationError } from '../lib/errors.js';
import { createSqsWorkerHandler } from '../lib/lambda/sqs-worker-handler.js';
import { createExampleJobs } from './jobs/index.js';

// Wiring only: the SQS worker Lambda running the example job types. Your own worker entry looks the same
// with your job definitions.
const config = readConfig();
if (!config.examplesTable) throw new ConfigurationError('LEASEFENCE_EXAMPLES_TABLE is required by the example worker');

export const handler = createSqsWorkerHandler({ config, jobs: createExampleJobs(config.examplesTable) });
