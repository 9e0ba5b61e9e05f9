import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { approvalGateUnseen } from '../approval-policy.js';
import type { Clock } from '../clock.js';
import { InvalidInputError } from '../errors.js';
import type { ValidIdentity } from '../identity.js';
import type { AnyJobDefinition } from '../job-definition.js';
import type { WorkState } from '../states.js';
import type { WorkItem } from '../store/index.js';
import { type JobBinding, newWorkItem, WorkItemStore } from '../store/index.js';
import { type TraceCarrier, traceMessageAttributes } from '../tracing/trace-context.js';
import { serializeEnvelope } from './envelope.js';
import { messageGroupOf } from './message-group.js';
import { wakeEnvelope } from './wake-envelope.js';

/**
 * Where a delayed job's row goes: the jobs table (and its deadline shard count, as deployed) and the job
 * definitions, whose attempt budget the row records. Read once per object (its store is kept with it): to change a
 * field, pass a new object.
 */
interface DelayedJobsConfig {
  client: DynamoDBDocumentClient;
  jobsTable: string;
  jobs: readonly JobBudget[];
  deadlineShards?: number;
  clock?: Clock;
}

/**
 * What a row written first needs of its job type: the attempt budget, and the version it binds (none: the row is
 * bound by its first claim). A job definition is one; a schedule's declaration gives one without the definition.
 */
type JobBudget = Pick<AnyJobDefinition, 'type' | 'maxAttempts'> & {
  readonly version?: number | undefined;
  readonly approval?: AnyJobDefinition['approval'];
};

/** What writing a delayed job's row first needs. */
interface DelayedJobDependencies {
  sqs: SQSClient;
  queueUrl: string;
  delayed?: DelayedJobsConfig;
}

/** The job a delayed send schedules, as the producer parsed it: identity, type, payload binding, when it is due. */
interface DelayedJob extends JobBinding {
  identity: ValidIdentity;
  jobVersion?: number;
  delaySeconds: number;
}

/** The row as stored after the send: created now, or a replay of the same identity and payload (nothing sent). */
interface ScheduledRow {
  outcome: 'created' | 'replay';
  state: WorkState;
  /** A replay of a finished job: its recorded outcome (never the payload). */
  outcomeCode?: string;
  result?: unknown;
  errorCode?: string;
  availableAt?: number;
  /** `deferred`: the row committed but the message could not be sent; the sweeper wakes the job when due. */
  wake?: 'sent' | 'deferred';
  messageId?: string;
}

/**
 * Rows first: writes the queued row (awaiting_approval for a type with an approval gate; due at now + delay, bound to the job version: the producer's, else the
 * definition's) with one conditional PutItem, then sends a `wake` message delayed by the same amount. A create
 * retried after a lost response is recognised by its write token and still sends its wake-up. The job is visible, listable and cancellable at once; a lost message
 * is found by the sweeper (deadline index) once due. A replay (same identity and hash) returns the stored
 * state and sends nothing; a different hash is a PayloadConflictError with nothing written or sent.
 * Missing `delayed` configuration, or a job type it does not define ▶ InvalidInputError before anything is written.
 */
async function scheduleDelayedJob(
  deps: DelayedJobDependencies,
  job: DelayedJob,
  /** The producer's trace context (tracing on), carried by the wake-up as message attributes. */
  trace?: TraceCarrier,
): Promise<ScheduledRow> {
  const { config, definition } = requireRowsConfig(deps, job.jobType);
  const store = jobsStore(config);
  const availableAt = store.now() + job.delaySeconds * 1000;
  const jobVersion = job.jobVersion ?? definition.version;
  // No body here to ask a predicate: a type with an approval gate writes every delayed row awaiting approval.
  const gate = approvalGateUnseen(definition.approval, store.now());
  const enqueued = await store.enqueue(
    newWorkItem(job.identity, { ...job, jobVersion }, definition.maxAttempts, availableAt, gate),
  );
  const item = enqueued.item;
  const row = { state: item.state, ...(item.availableAt !== undefined ? { availableAt: item.availableAt } : {}) };
  if (enqueued.outcome === 'replay') return { outcome: 'replay', ...row, ...recordedOutcome(item) };
  // The wake-up names the version bound to the row (the sweeper's and an operator's wake-ups name it too).
  const envelope = wakeEnvelope(item);
  try {
    const sent = await deps.sqs.send(
      new SendMessageCommand({
        QueueUrl: deps.queueUrl,
        MessageBody: serializeEnvelope(envelope),
        MessageGroupId: messageGroupOf(job.identity.tenantId),
        // A gated row's wake-up goes at once: the worker opens its approval record from it (the approver cannot
        // approve before), and the approval keeps the row's due time.
        DelaySeconds: gate ? 0 : job.delaySeconds,
        ...(trace ? { MessageAttributes: traceMessageAttributes(trace) } : {}),
      }),
    );
    return { outcome: 'created', ...row, wake: 'sent', ...(sent.MessageId ? { messageId: sent.MessageId } : {}) };
  } catch {
    // The row committed: the sweeper re-signals a queued item whose availableAt has passed.
    return { outcome: 'created', ...row, wake: 'deferred' };
  }
}

/**
 * The jobs-table configuration a rows-first send needs, and the job type's definition in it (for the attempt
 * budget); InvalidInputError when either is missing, before anything is written.
 */
function requireRowsConfig(
  deps: Pick<DelayedJobDependencies, 'delayed'>,
  jobType: string,
): { config: DelayedJobsConfig; definition: JobBudget } {
  const config = deps.delayed;
  if (!config) {
    throw new InvalidInputError(
      'a delayed or confirmed job writes its row first: pass `delayed` (jobs table and job definitions)',
      [{ path: 'delayed', message: 'required when delaySeconds > 0 or confirm is set' }],
    );
  }
  const definition = config.jobs.find((candidate) => candidate.type === jobType);
  if (!definition) {
    throw new InvalidInputError(`job type ${jobType} is not in the registry; its attempt budget is unknown`, [
      { path: 'jobType', message: 'not registered' },
    ]);
  }
  return { config, definition };
}

/** One store per config object: its fence-epoch cache then serves every send made with that config. */
const storesByConfig = new WeakMap<DelayedJobsConfig, WorkItemStore>();

/**
 * The store of the configured jobs table (the producer's rows-first writes and its replay reads), kept per config
 * object, so a producer that reuses its config reads the fence epoch once per cache period, not once per send.
 */
function jobsStore(config: DelayedJobsConfig): WorkItemStore {
  let store = storesByConfig.get(config);
  if (!store) {
    store = new WorkItemStore({
      client: config.client,
      tableName: config.jobsTable,
      ...(config.clock ? { clock: config.clock } : {}),
      ...(config.deadlineShards ? { deadlineShards: config.deadlineShards } : {}),
    });
    storesByConfig.set(config, store);
  }
  return store;
}

/** A stored row's outcome fields, those it has (a producer's replay answer; never the payload or error text). */
function recordedOutcome(item: WorkItem): Pick<ScheduledRow, 'outcomeCode' | 'result' | 'errorCode'> {
  return {
    ...(item.outcomeCode !== undefined ? { outcomeCode: item.outcomeCode } : {}),
    ...(item.result !== undefined ? { result: item.result } : {}),
    ...(item.errorCode !== undefined ? { errorCode: item.errorCode } : {}),
  };
}

export {
  type DelayedJobDependencies,
  type DelayedJobsConfig,
  type JobBudget,
  jobsStore,
  recordedOutcome,
  requireRowsConfig,
  type ScheduledRow,
  scheduleDelayedJob,
};
