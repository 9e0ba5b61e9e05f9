import { engineEndpoints } from './engine.js';

/** Where a CLI command under test goes: tables and a queue on the test engines (no stack file, no AWS). */
interface EngineTarget {
  jobsTable: string;
  payloadsTable: string;
  queueUrl: string;
  deadlineShards: number;
}

/**
 * The target flags that point a CLI command (`main([...])`) at tables and a queue of the test engines: explicit names,
 * the deadline shard count (never assumed by the CLI) and the engines' endpoints.
 */
function engineTargetFlags(target: EngineTarget): string[] {
  const { dynamo, sqs } = engineEndpoints();
  return [
    ...['--jobs-table', target.jobsTable, '--payloads-table', target.payloadsTable],
    ...['--queue-url', target.queueUrl, '--deadline-shards', String(target.deadlineShards)],
    ...['--dynamodb-endpoint', dynamo, '--sqs-endpoint', sqs],
  ];
}

/** The engine target of a worker harness (its tables, its queue, its store's deadline shards). */
function harnessTargetFlags(harness: {
  tables: { jobsTable: string; payloadsTable: string };
  queueUrl: string;
  store: { deadlines: { shardCount: number } };
}): string[] {
  return engineTargetFlags({
    ...harness.tables,
    queueUrl: harness.queueUrl,
    deadlineShards: harness.store.deadlines.shardCount,
  });
}

export { type EngineTarget, engineTargetFlags, harnessTargetFlags };
