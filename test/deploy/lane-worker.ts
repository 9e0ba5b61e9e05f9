import { examplesTableFromEnvironment } from '../../examples/jobs/examples-table.js';
import { createExampleJobs } from '../../examples/jobs/index.js';
import { createSqsWorkerHandler } from '../../lib/lambda/sqs-worker-handler.js';
import { jobs as faultCheckJobs } from '../integration/cli/fixtures/fault-check-module.js';

// The deployment lane's worker entry (-c workerEntry=…): the example job types, and the two job types of the fault
// check's fixture module (fenced-credit, GO; unfenced-credit, an unfenced PutItem: NO-GO), so one deployed stack
// answers both `check --stack` runs.
export const handler = createSqsWorkerHandler({
  jobs: [...createExampleJobs(examplesTableFromEnvironment()), ...faultCheckJobs],
});
