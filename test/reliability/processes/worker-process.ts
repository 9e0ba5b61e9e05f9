import { pollOnce } from '../../../infra/local/sqs-event-source.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { createSqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { RetentionDays } from '../../../lib/rules.js';
import { createSqsClient } from '../../../lib/sqs-client.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import type { MessageResult } from '../../../lib/worker/worker-runtime.js';
import { EffectLedger } from '../support/effect-ledger.js';
import { type Checkpoint, reliabilityJobs } from '../support/reliability-jobs.js';
import type { ChildMessage, DeliveryOutcome, ParentMessage, WorkerProcessConfig } from '../support/worker-protocol.js';

// One worker process of the reliability suite: the SQS worker handler with the reliability jobs, on the
// system clock, against the engines the test started. The test delivers messages over IPC (or lets it poll
// a queue), stops it at checkpoints, and pauses or kills it with real signals.

const config = JSON.parse(process.env.LF_WORKER_CONFIG ?? '{}') as WorkerProcessConfig;
const send = (message: ChildMessage) => process.send?.(message);
const released = new Map<string, () => void>();
const preReleased = new Set<string>();
const gateKey = (point: Checkpoint, operationId: string) => `${point}\u0000${operationId}`;

const ledger = new EffectLedger(
  createDocumentClient({ endpoint: config.ledgerEndpoint ?? config.dynamoEndpoint }),
  config.ledgerTable,
);
const handler = createSqsWorkerHandler({
  jobs: reliabilityJobs({
    workerId: config.workerId,
    ledger,
    recordsTable: config.recordsTable ?? config.ledgerTable,
    leaseMs: config.leaseMs,
    ...(config.logRuns ? { onRun: (context) => ledger.logRun(context.identity, context.fence, config.workerId) } : {}),
    checkpoint: (point, context) =>
      new Promise<void>((resolve) => {
        const key = gateKey(point, context.identity.operationId);
        if (preReleased.delete(key)) return resolve();
        released.set(key, resolve);
        send({ type: 'checkpoint', point, ...context });
      }),
  }),
  config: {
    jobsTable: config.jobsTable,
    payloadsTable: config.payloadsTable,
    deadlineShards: 8,
    payloadRetentionDays: RetentionDays.default,
    dynamodbEndpoint: config.dynamoEndpoint,
  },
  workerId: config.workerId,
  telemetry: countingTelemetry(),
});

function outcomeOf(result: MessageResult): DeliveryOutcome {
  if (result.status === 'executed') {
    const reason = result.result.state === 'ownership_lost' ? result.result.reason : undefined;
    return {
      ok: true,
      status: result.status,
      state: result.result.state,
      fence: result.fence,
      ...(reason ? { reason } : {}),
    };
  }
  if (result.status === 'item_quarantined') return { ok: true, status: result.status, reason: result.reason };
  return { ok: true, status: result.status, reason: result.reason };
}

let polling = false;
async function pollLoop(queueUrl: string, visibilityTimeoutSeconds: number): Promise<void> {
  const sqs = createSqsClient({ endpoint: config.sqsEndpoint });
  while (polling) {
    try {
      await pollOnce({ sqs, queueUrl, handler, waitTimeSeconds: 1, visibilityTimeoutSeconds, batchSize: 5 });
    } catch (error) {
      send({ type: 'poll-error', message: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  sqs.destroy();
}

process.on('message', (raw: ParentMessage) => {
  if (raw.type === 'deliver') {
    handler.runtime.handleMessage(raw.message).then(
      (result) => send({ type: 'delivered', id: raw.id, outcome: outcomeOf(result) }),
      (error: Error) =>
        send({
          type: 'delivered',
          id: raw.id,
          outcome: { ok: false, error: { name: error.name, message: error.message } },
        }),
    );
  } else if (raw.type === 'continue') {
    const key = gateKey(raw.point, raw.operationId);
    const resolve = released.get(key);
    if (resolve) {
      released.delete(key);
      resolve();
    } else preReleased.add(key);
  } else if (raw.type === 'poll') {
    polling = true;
    void pollLoop(raw.queueUrl, raw.visibilityTimeoutSeconds);
  } else if (raw.type === 'stop-polling') {
    polling = false;
  }
});
// The test process is the only reason to live: without it, exit instead of becoming an orphan.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', workerId: config.workerId });
