import { createExampleJobs } from '../../examples/jobs/index.js';
import { EXAMPLES_TABLE, exampleConformance, tables as exampleTables } from '../../examples/jobs/module.js';
import type { AnyJobDefinition } from '../../lib/job-definition.js';

// The example jobs as the deployment lane runs them (its worker entry, test/deploy/lane-worker.ts) and checks them
// (`check --stack --jobs test/deploy/lane-examples-module.ts`): the examples' own code, records, samples and
// `prepare`, with one change, their lease. A faulted check waits, per job type, for the receipt crash's redelivery
// after the queue's visibility timeout (6 × the worker's timeout), and the worker's timeout must outlast the paused
// attempt (the longest lease + 3 s, then until the takeover, at most as long again): with the shipped 30 s leases
// that is a worker timeout of about 70 s and 7 minutes a type. The lease decides only when a takeover may
// happen, never what a write may do (the fences decide that), so the verdicts are the shipped examples'.

/** The lease the lane gives the example jobs (the fault module's order of magnitude: the takeover comes quickly). */
const LANE_EXAMPLE_LEASE_MS = 3_000;

/** The examples table: the deployed stack's (LEASEFENCE_EXAMPLES_TABLE, as its worker reads it) or the declared one. */
const examplesTable = process.env.LEASEFENCE_EXAMPLES_TABLE ?? EXAMPLES_TABLE;

/** The example job types writing to `table`, with the lane's lease. */
function laneExampleJobs(table: string): AnyJobDefinition[] {
  return createExampleJobs(table).map((job) => Object.freeze({ ...job, leaseMs: LANE_EXAMPLE_LEASE_MS }));
}

const tables = exampleTables.map((table) => ({ ...table, TableName: examplesTable }));
const jobs = laneExampleJobs(examplesTable);
const conformance = exampleConformance(examplesTable);

export { conformance, jobs, LANE_EXAMPLE_LEASE_MS, laneExampleJobs, tables };
