import { mapBounded } from '../../../lib/internal/bounded-parallel.js';
import { DEFAULT_DEADLINE_SHARDS, deadlineShardFor } from '../../../lib/store/table.js';
import { startBenchEngine } from '../support/bench-engine.js';
import { leasefenceMessage } from '../support/jobs.js';
import { createLeasefenceWorker } from '../support/leasefence-worker.js';

// Child process of figure 8 (load generator): one leasefence worker handles `jobs` jobs spread over
// `tenants` against the parent's engine and prints one JSON line: writes per partition key of the jobs table
// (counted on the wire, from each write's key) and deadline-index writes per shard (2 per job: claim, completion).

interface ChildConfig {
  endpoint: string;
  jobsTable: string;
  payloadsTable: string;
  tenants: string[];
  jobs: number;
  concurrency: number;
  worker: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const engine = await startBenchEngine({ endpoint: config.endpoint });
const worker = createLeasefenceWorker({
  engine,
  tables: { jobsTable: config.jobsTable, payloadsTable: config.payloadsTable },
  workerId: config.worker,
});
const writesByKey: Record<string, number> = {};
const indexWritesByShard: Record<string, number> = {};
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'PutCommand', 'UpdateCommand']);
worker.client.middlewareStack.add(
  (next, context) => async (args) => {
    // The store's conditional writes arrive marshalled (`{ S: … }`), other requests as DocumentClient values.
    type Pk = string | { S?: string } | undefined;
    const input = args.input as { TableName?: string; Key?: { pk?: Pk }; Item?: { pk?: Pk } };
    if (WRITES.has(String(context.commandName)) && input.TableName === config.jobsTable) {
      const value = input.Key?.pk ?? input.Item?.pk;
      const pk = String(typeof value === 'object' ? value.S : value);
      writesByKey[pk] = (writesByKey[pk] ?? 0) + 1;
    }
    return next(args);
  },
  { step: 'initialize', priority: 'high', name: 'load-partition-counter' },
);

const started = performance.now();
await mapBounded(
  Array.from({ length: config.jobs }, (_, index) => index),
  config.concurrency,
  async (index) => {
    const tenantId = config.tenants[index % config.tenants.length] as string;
    const identity = { tenantId, operationId: `${config.worker}-${index}` };
    const result = await worker.runtime.handleMessage(leasefenceMessage(identity, 'ref'));
    if (result.status !== 'executed') throw new Error(`job ${index}: ${result.status}`);
    const shard = deadlineShardFor(identity, DEFAULT_DEADLINE_SHARDS);
    indexWritesByShard[shard] = (indexWritesByShard[shard] ?? 0) + 2;
  },
);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ jobs: config.jobs, seconds, writesByKey, indexWritesByShard })}\n`);
await engine.stop();
