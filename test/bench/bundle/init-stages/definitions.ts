import { examplesTableFromEnvironment } from '../../../../examples/jobs/examples-table.js';
import { createExampleJobs } from '../../../../examples/jobs/index.js';

// Init stage 2 (support/init-stages.ts): stage 1 and the example job definitions, validated as at a cold start.
export { loaded } from './modules.js';
export const jobs = createExampleJobs(examplesTableFromEnvironment());
