import { userInfo } from 'node:os';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AdminDeps, MetricCounts } from '../../lib/admin/deps.js';
import { systemClock } from '../../lib/clock.js';
import { createDocumentClient } from '../../lib/document-client.js';
import { createSqsClient } from '../../lib/sqs-client.js';
import { OperatorStore, PayloadStore } from '../../lib/store/index.js';
import { DEFAULT_LOCAL_ACTOR } from '../local/local-actor.js';
import { localStartCommand } from '../local/start-hint.js';
import { DEFAULT_LOCAL_DIR, readLiveStackState, type StackState } from '../local/state-file.js';
import { readStackOutputs, type StackOutputs } from './cloudformation.js';
import { TargetError, UsageError } from './errors.js';
import type { TargetFlags } from './schemas.js';

/** What a command talks to: the local stack or an AWS deployment, with clients ready and the acting operator. */
interface CliTarget {
  kind: 'local' | 'aws';
  label: string;
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  store: OperatorStore;
  admin: AdminDeps;
  payloads: PayloadStore;
  tables: { jobs: string; payloads: string; examples?: string };
  queueUrl: string;
  deadLetterQueueUrl?: string;
  /** The engines' endpoints when not AWS's own (--dynamodb-endpoint, --sqs-endpoint, or the local stack's). */
  endpoints: { dynamodb?: string; sqs?: string };
  /** The deployment's identifier key secret, from the stack's IdentifierKeySecretArn output (--stack only). */
  identifierKeySecretArn?: string;
  /** Set for a local stack (the demo needs it). */
  local?: StackState;
  actor: string;
  close(): void;
}

/** The local stack's folder: --local-dir, else LEASEFENCE_LOCAL_DIR, else `.local`. */
function localDir(flags: Pick<TargetFlags, 'local-dir'>, env: NodeJS.ProcessEnv): string {
  return flags['local-dir'] ?? env.LEASEFENCE_LOCAL_DIR ?? DEFAULT_LOCAL_DIR;
}

/** True when any flag asks for something other than the local stack (AWS, or another engine by endpoint). */
function wantsRemote(flags: TargetFlags): boolean {
  const remote = [
    'stack',
    'region',
    'profile',
    'jobs-table',
    'payloads-table',
    'queue-url',
    'dlq-url',
    'deadline-shards',
    'dynamodb-endpoint',
    'sqs-endpoint',
  ] as const;
  return remote.some((flag) => flags[flag] !== undefined);
}

/**
 * Names and settings of a remote target: from the stack's outputs, or from the explicit flags. The deadline
 * shard count is never assumed (a wrong one hides rows from listings and counts, and files a retried row in a
 * shard the deployment's sweeper never reads), so without --stack it is a required flag.
 */
async function remoteResources(flags: TargetFlags): Promise<StackOutputs> {
  if (flags.stack) {
    if (flags['deadline-shards'] !== undefined)
      throw new UsageError('--deadline-shards: comes from the stack with --stack (its DeadlineShards output)');
    return readStackOutputs(flags.stack, flags.region);
  }
  for (const flag of ['jobs-table', 'payloads-table', 'queue-url', 'deadline-shards'] as const) {
    if (flags[flag] === undefined) throw new UsageError(`--${flag}: is required when targeting AWS without --stack`);
  }
  return {
    jobsTable: flags['jobs-table'] as string,
    payloadsTable: flags['payloads-table'] as string,
    queueUrl: flags['queue-url'] as string,
    deadlineShards: flags['deadline-shards'] as number,
    ...(flags['dlq-url'] ? { deadLetterQueueUrl: flags['dlq-url'] } : {}),
  };
}

/** The local stack's worker counters, read from its admin API's /health (the worker runs in the stack's process). */
function localMetrics(adminUrl: string): () => Promise<MetricCounts | undefined> {
  return async () => {
    const response = await fetch(`${adminUrl}/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as { metrics?: MetricCounts };
    return body.metrics;
  };
}

function build(
  kind: CliTarget['kind'],
  label: string,
  resources: StackOutputs,
  endpoints: { dynamodb?: string; sqs?: string; region?: string },
  actor: string,
  local?: StackState,
): CliTarget {
  const region = endpoints.region ? { region: endpoints.region } : {};
  const client = createDocumentClient({ ...region, ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb } : {}) });
  const sqs = createSqsClient({ ...region, ...(endpoints.sqs ? { endpoint: endpoints.sqs } : {}) });
  const store = new OperatorStore({
    client,
    tableName: resources.jobsTable,
    deadlineShards: resources.deadlineShards,
  });
  const admin: AdminDeps = {
    store,
    sqs,
    queueUrl: resources.queueUrl,
    payloadsTable: resources.payloadsTable,
    ...(resources.deadLetterQueueUrl ? { deadLetterQueueUrl: resources.deadLetterQueueUrl } : {}),
    ...(kind === 'local' ? { dlqWaitTimeSeconds: 0 } : {}),
    ...(local ? { metrics: localMetrics(local.endpoints.admin) } : {}),
  };
  return {
    kind,
    label,
    client,
    sqs,
    store,
    admin,
    payloads: new PayloadStore(client, resources.payloadsTable, systemClock),
    tables: {
      jobs: resources.jobsTable,
      payloads: resources.payloadsTable,
      ...(resources.examplesTable ? { examples: resources.examplesTable } : {}),
    },
    queueUrl: resources.queueUrl,
    ...(resources.deadLetterQueueUrl ? { deadLetterQueueUrl: resources.deadLetterQueueUrl } : {}),
    endpoints: {
      ...(endpoints.dynamodb ? { dynamodb: endpoints.dynamodb } : {}),
      ...(endpoints.sqs ? { sqs: endpoints.sqs } : {}),
    },
    ...(resources.identifierKeySecretArn ? { identifierKeySecretArn: resources.identifierKeySecretArn } : {}),
    ...(local ? { local } : {}),
    actor,
    close: () => {
      client.destroy();
      sqs.destroy();
    },
  };
}

/**
 * Opens the target: AWS when any AWS flag is given (tables and queues from --stack outputs or explicit flags;
 * credentials from --profile or the default chain), else the local stack named by `<local-dir>/stack.json` if its
 * process is alive. No stack running ▶ TargetError saying how to start one.
 */
async function openTarget(flags: TargetFlags, env: NodeJS.ProcessEnv): Promise<CliTarget> {
  const target = await openTargetOf(flags, env);
  const bound = flags['worker-max-run-ms'];
  // The statement "the effect did not happen" waits out the worker's timeout (default: Lambda's 15 minutes).
  return bound === undefined ? target : { ...target, admin: { ...target.admin, workerMaxRunMs: bound } };
}

/** The target the flags name, before --worker-max-run-ms. */
async function openTargetOf(flags: TargetFlags, env: NodeJS.ProcessEnv): Promise<CliTarget> {
  if (wantsRemote(flags)) {
    if (flags.profile) env.AWS_PROFILE = flags.profile;
    const resources = await remoteResources(flags);
    const region = flags.region ?? env.AWS_REGION;
    const label = flags.stack ? `AWS stack ${flags.stack}` : `AWS tables ${resources.jobsTable}`;
    const endpoints = {
      ...(flags['dynamodb-endpoint'] ? { dynamodb: flags['dynamodb-endpoint'] } : {}),
      ...(flags['sqs-endpoint'] ? { sqs: flags['sqs-endpoint'] } : {}),
      ...(region ? { region } : {}),
    };
    return build('aws', label, resources, endpoints, flags.actor ?? `cli:${userInfo().username}`);
  }
  const dir = localDir(flags, env);
  const state = await readLiveStackState(dir);
  if (!state) {
    throw new TargetError(
      `no local stack is running (no live ${dir}/stack.json). Start one with \`${localStartCommand()}\`, or target AWS with --stack <name> or --jobs-table/--payloads-table/--queue-url/--deadline-shards`,
    );
  }
  const resources: StackOutputs = {
    jobsTable: state.tables.jobs,
    payloadsTable: state.tables.payloads,
    queueUrl: state.queues.jobs,
    deadLetterQueueUrl: state.queues.deadLetter,
    examplesTable: state.tables.examples,
    deadlineShards: state.settings.deadlineShards,
  };
  const endpoints = { dynamodb: state.endpoints.dynamodb, sqs: state.endpoints.sqs, region: state.region };
  return build(
    'local',
    `local stack (pid ${state.pid})`,
    resources,
    endpoints,
    flags.actor ?? DEFAULT_LOCAL_ACTOR,
    state,
  );
}

export { type CliTarget, localDir, openTarget };
