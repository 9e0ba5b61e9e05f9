import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DemoEnvironment, Timeline, TimelineEvent } from '../../infra/local/demo-types.js';
import { type Clock, ManualClock } from '../../lib/clock.js';
import { createDocumentClient } from '../../lib/document-client.js';
import { payloadHash } from '../../lib/hashing.js';
import { formatIdentity, type JobIdentity, parseIdentity } from '../../lib/identity.js';
import { type AnyJobDefinition, JobRegistry } from '../../lib/job-definition.js';
import { serializeEnvelope } from '../../lib/messaging/envelope.js';
import type { WorkItem } from '../../lib/store/index.js';
import { LEASE_LOST_CODE, PayloadStore, WorkItemStore } from '../../lib/store/index.js';
import { type MessageResult, WorkerRuntime } from '../../lib/worker/worker-runtime.js';
import { pausableClient } from './pausable-client.js';
import { recordingTelemetry } from './recorder.js';

/** A stalled-worker scenario: which job, and where worker-A freezes. */
interface StallSpec {
  title: string;
  definition: AnyJobDefinition;
  identity: JobIdentity;
  payload: unknown;
  /** worker-A freezes right after the request whose input matches (e.g. its call to the gateway). */
  pauseAfter: (input: Record<string, unknown>) => boolean;
  /** What worker-A had done when it froze, in plain words. */
  pausedAfterText: string;
  /** The write worker-A attempts when it wakes up, in plain words. */
  resumedWriteText: string;
}

/** How the scenario ended: both workers' results, the row, and the story. */
interface StallOutcome {
  first: MessageResult;
  second: MessageResult;
  item: WorkItem | undefined;
  staleWritesRejected: number;
  timeline: Timeline;
}

/** A demo worker: the real runtime on its own client, no heartbeat timer (the demo moves the clock by hand). */
function demoWorker(name: string, client: DynamoDBDocumentClient, env: DemoEnvironment, spec: StallSpec, clock: Clock) {
  const telemetry = recordingTelemetry(env.metrics);
  const store = new WorkItemStore({ client, tableName: env.tables.jobs, clock });
  const runtime = new WorkerRuntime({
    store,
    client,
    registry: new JobRegistry([spec.definition]),
    payloads: new PayloadStore(client, env.tables.payloads, clock),
    telemetry,
    workerId: name,
    heartbeatIntervalMs: 0,
  });
  return { runtime, telemetry };
}

/**
 * What `worker` claimed, read from the row's attempt history (the claim's own record, not a log line: a first
 * claim logs nothing of its own). `did not claim` only when the history has no entry of this worker.
 */
function claimText(worker: string, item: WorkItem | undefined, identity: JobIdentity, maxAttempts: number) {
  const history = item?.ah ?? [];
  const index = history.map((entry) => entry.o).lastIndexOf(worker);
  const entry = history[index];
  if (!item || !entry) return `${worker} did not claim ${formatIdentity(identity)}`;
  const newest = index === history.length - 1;
  const fence = entry.f ?? (newest ? item.fence : undefined);
  const attempt = item.attempts - (history.length - 1 - index);
  const before = history[index - 1];
  const takeover = before && before.o !== worker && (before.r === undefined || before.r === LEASE_LOST_CODE);
  const how = takeover ? ', taking over an expired lease' : '';
  return `${worker} claimed ${formatIdentity(identity)} with fence ${fence} (attempt ${attempt} of ${maxAttempts}${how})`;
}

function resultText(worker: string, result: MessageResult, spec: StallSpec): string {
  if (result.status !== 'executed')
    return `${worker}: message ${result.status} (${'reason' in result ? result.reason : ''})`;
  const ended = result.result;
  if (ended.state === 'succeeded') {
    const how = ended.reconciled
      ? 'reconciled by the idempotency key (the provider already had it; no second call) and '
      : '';
    return `${worker} ${how}completed: succeeded under fence ${result.fence}`;
  }
  if (ended.state === 'ownership_lost') {
    const why =
      ended.reason === 'fence.rejected'
        ? 'was REJECTED by the record (a newer fence wrote it)'
        : 'found its fence superseded';
    return `${worker} resumed; its ${spec.resumedWriteText} carrying fence ${result.fence} ${why}, so it stopped without changing anything`;
  }
  return `${worker} ended with ${ended.state} (${'errorCode' in ended ? ended.errorCode : ended.reason})`;
}

/**
 * Runs one job through the real worker runtime twice: worker-A claims it, does the first part of the work and
 * freezes; the clock passes the lease; the message is redelivered and worker-B takes over with fence + 1 and
 * finishes; then worker-A wakes up and tries its next write, which the fence must reject. Deterministic: the
 * lease runs on a manual clock and worker-A is held at a fixed request, not by timing.
 */
async function runStalledWorker(env: DemoEnvironment, spec: StallSpec): Promise<StallOutcome> {
  const clock = new ManualClock(Date.now());
  const began = clock.now();
  const hash = payloadHash(spec.payload);
  await new PayloadStore(env.client, env.tables.payloads, clock).put(spec.identity, spec.payload, hash);
  const body = serializeEnvelope({
    v: 1,
    kind: 'job',
    ...spec.identity,
    jobType: spec.definition.type,
    payloadHash: hash,
    payload: { inline: true },
  });
  const messageId = `demo-${spec.identity.operationId}`;
  const pausable = pausableClient(createDocumentClient({ endpoint: env.dynamodbEndpoint }), spec.pauseAfter);
  const freshClient = createDocumentClient({ endpoint: env.dynamodbEndpoint });
  const events: TimelineEvent[] = [];
  const at = (actor: string, text: string) => events.push({ atMs: clock.now() - began, actor, text });
  try {
    // worker-A's clock freezes with it (a paused VM): when it wakes it cannot tell its lease expired, so its
    // lease-doubt guard lets the write go out, and only the fence can stop it.
    let frozenFor = 0;
    const clockOfA: Clock = { now: () => clock.now() - frozenFor };
    const a = demoWorker('worker-A', pausable.client, env, spec, clockOfA);
    const firstRun = a.runtime.handleMessage({ messageId, body, receiveCount: 1 });
    const reachedPause = await Promise.race([pausable.paused.then(() => true), firstRun.then(() => false)]);
    const rows = new WorkItemStore({ client: freshClient, tableName: env.tables.jobs, clock });
    const row = () => rows.get(parseIdentity(spec.identity));
    at('worker-A', claimText('worker-A', await row(), spec.identity, spec.definition.maxAttempts));
    if (!reachedPause) throw new Error(`demo scenario "${spec.title}": worker-A finished without reaching its pause`);
    at(
      'worker-A',
      `worker-A ${spec.pausedAfterText}, then froze with its clock (think: a paused VM) and reported no progress`,
    );
    frozenFor = spec.definition.leaseMs + 1_000;
    clock.advance(frozenFor);
    at('queue', `the ${spec.definition.leaseMs / 1000} s lease expired unrenewed; the message was delivered again`);
    const b = demoWorker('worker-B', freshClient, env, spec, clock);
    const second = await b.runtime.handleMessage({ messageId, body, receiveCount: 2 });
    at('worker-B', claimText('worker-B', await row(), spec.identity, spec.definition.maxAttempts));
    at('worker-B', resultText('worker-B', second, spec));
    pausable.resume();
    const first = await firstRun;
    at('worker-A', resultText('worker-A', first, spec));
    const item = await row();
    const staleWritesRejected =
      (a.telemetry.counts.StaleFenceRejected ?? 0) + (b.telemetry.counts.StaleFenceRejected ?? 0);
    return { first, second, item, staleWritesRejected, timeline: { title: spec.title, events } };
  } finally {
    pausable.resume();
    pausable.client.destroy();
    freshClient.destroy();
  }
}

export { runStalledWorker, type StallOutcome, type StallSpec };
