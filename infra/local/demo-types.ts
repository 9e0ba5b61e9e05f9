import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MetricName } from '../../lib/metric-names.js';

/** The contract between the CLI and the example demo (examples/demo/), which the CLI loads by path.
 * Where the demo runs: a local stack's (or a test's) engines, tables and queue; something polls the queue. */
interface DemoEnvironment {
  /** Endpoint of the DynamoDB engine (the demo's own stalled workers get fresh clients on it). */
  dynamodbEndpoint: string;
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  queueUrl: string;
  tables: { jobs: string; payloads: string; examples: string };
  /** Shown in the output, e.g. "dynalite". */
  engineName: string;
  /**
   * Where the demo's own (stalled) workers count their metrics: the stack's shared counters, so its admin API and
   * consoles show the takeovers and rejected stale writes the demo caused. Absent: counted in the report only.
   */
  metrics?: { count(metric: MetricName, value?: number): void };
}

/** One line of a timeline: when (ms after the scenario began, on its clock), who, what. */
interface TimelineEvent {
  atMs: number;
  actor: string;
  text: string;
}

/** A scenario's story. */
interface Timeline {
  title: string;
  events: TimelineEvent[];
}

/** One operation the demo ran, as it ended, with the side effects counted at their target. */
interface DemoOperation {
  tenantId: string;
  operationId: string;
  jobType: string;
  targetClass: string;
  path: 'queue' | 'stalled worker';
  state: string;
  fence: number;
  /** Side effects found at the target (gateway refunds, current statement pointers, stock decrements). */
  sideEffects: number;
  sideEffectKind: string;
  /** The target record as it ended, in plain words (e.g. "pointer → generation 2"). */
  detail: string;
}

/** Everything the demo found; `sideEffectsPerOperation` is the common count, or 'mixed' when they differ. */
interface DemoReport {
  runTag: string;
  engine: { name: string; transactions: boolean };
  operations: DemoOperation[];
  timelines: Timeline[];
  staleWritesRejected: number;
  skipped: Array<{ jobType: string; reason: string }>;
  sideEffectsPerOperation: number | 'mixed';
}

/** How one demo run is tagged and how long it waits. */
interface DemoOptions {
  runTag?: string;
  /** How long to wait for the queued jobs to finish, in ms (default 30 s). */
  timeoutMs?: number;
}

/** The demo's entry point (`examples/demo/run-demo.ts`), loaded by path by the CLI. */
type RunDemo = (env: DemoEnvironment, options?: DemoOptions) => Promise<DemoReport>;

export type { DemoEnvironment, DemoOperation, DemoOptions, DemoReport, RunDemo, Timeline, TimelineEvent };
