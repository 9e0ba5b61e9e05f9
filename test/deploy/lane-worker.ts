import { examplesTableFromEnvironment } from '../../examples/jobs/examples-table.js';
import { createSqsWorkerHandler } from '../../lib/lambda/sqs-worker-handler.js';
import { jobs as faultCheckJobs } from '../integration/cli/fixtures/fault-check-module.js';
import { laneExampleJobs } from './lane-examples-module.js';

// The deployment lane's worker entry (-c workerEntry=…): the example job types with the lane's lease
// (lane-examples-module.ts says why), and the two job types of the fault check's fixture module (fenced-credit, GO;
// unfenced-credit, an unfenced PutItem: NO-GO). Both lane stacks deploy this entry; each check runs on its own stack.
export const handler = createSqsWorkerHandler({
  jobs: [...laneExampleJobs(examplesTableFromEnvironment()), ...faultCheckJobs],
});
