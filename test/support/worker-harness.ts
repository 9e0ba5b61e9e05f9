import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pollOnce } from '../../infra/local/sqs-event-source.js';
import { ManualClock } from '../../lib/clock.js';
import type { AnyJobDefinition } from '../../lib/job-definition.js';
import { createSqsWorkerHandler, type SqsWorkerHandler } from '../../lib/lambda/sqs-worker-handler.js';
import { type SendJobInput, sendJob } from '../../lib/messaging/producer.js';
import type { SenderTenants } from '../../lib/messaging/sender-tenants.js';
import type { InlinePayloadPolicy } from '../../lib/rules.js';
import { OperatorStore } from '../../lib/store/operator/operator-store.js';
import { PayloadStore } from '../../lib/store/payloads/payloads.js';
import { countingTelemetry } from '../../lib/telemetry.js';
import type { PayloadResolver } from '../../lib/worker/load-payload.js';
import {
  createTestQueue,
  createTestTables,
  type TestTables,
  testDocumentClient,
  testHandlerConfig,
  testSqsClient,
} from './engine.js';

/** Everything a worker test needs, on fresh tables and a fresh queue of the real local engines. */
interface WorkerHarness {
  tables: TestTables;
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  queueUrl: string;
  dlqUrl: string;
  clock: ManualClock;
  store: OperatorStore;
  payloads: PayloadStore;
  /** A new worker handler (each is one "Lambda container" with its own worker id). */
  worker(options?: {
    workerId?: string;
    /** The job types this worker runs, when not the harness's (a worker of another deployment's versions). */
    jobs?: readonly AnyJobDefinition[];
    payloadResolver?: PayloadResolver;
    /** Job types this deployment switches off (LEASEFENCE_DISABLED_JOB_TYPES). */
    disabledJobTypes?: string[];
    /** Which senders may produce for which tenants (LEASEFENCE_SENDER_TENANTS). */
    senderTenants?: SenderTenants;
    /** Payload bodies carried in messages (LEASEFENCE_INLINE_PAYLOADS; default accept). */
    inlinePayloads?: InlinePayloadPolicy;
    /** Emit OpenTelemetry spans (the handler's `tracing` option). */
    tracing?: boolean;
    /** How an in-process budget wait sleeps (flow control). */
    sleep?: (ms: number) => Promise<void>;
  }): SqsWorkerHandler & { telemetry: ReturnType<typeof countingTelemetry> };
  send(input: SendJobInput): ReturnType<typeof sendJob>;
  /** One event-source round with the given handler. */
  poll(
    handler: SqsWorkerHandler,
    options?: { visibilityTimeoutSeconds?: number; waitTimeSeconds?: number },
  ): ReturnType<typeof pollOnce>;
  queueDepth(queueUrl?: string): Promise<{ visible: number; inFlight: number }>;
  close(): Promise<void>;
}

/** Creates tables, queue and clients for one test file; `jobs` are the job types every worker runs. */
async function createWorkerHarness(prefix: string, jobs: readonly AnyJobDefinition[]): Promise<WorkerHarness> {
  const tables = await createTestTables(prefix);
  const client = testDocumentClient();
  const sqs = testSqsClient();
  const { queueUrl, dlqUrl } = await createTestQueue(sqs, prefix);
  const clock = new ManualClock(Date.now());
  const store = new OperatorStore({ client, tableName: tables.jobsTable, clock });
  const payloads = new PayloadStore(client, tables.payloadsTable, clock);
  const config = testHandlerConfig(tables, { queueUrl, dlqUrl });
  return {
    tables,
    client,
    sqs,
    queueUrl,
    dlqUrl,
    clock,
    store,
    payloads,
    worker: ({ disabledJobTypes, senderTenants, inlinePayloads, jobs: ownJobs, ...options } = {}) => {
      const telemetry = countingTelemetry();
      const handler = createSqsWorkerHandler({
        jobs: ownJobs ?? jobs,
        config: {
          ...config,
          ...(disabledJobTypes ? { disabledJobTypes } : {}),
          ...(senderTenants ? { senderTenants } : {}),
          ...(inlinePayloads ? { inlinePayloads } : {}),
        },
        clock,
        telemetry,
        heartbeatIntervalMs: 0,
        ...options,
      });
      return Object.assign(handler, { telemetry });
    },
    send: (input) => sendJob({ sqs, queueUrl, payloads }, input),
    poll: (handler, options = {}) => pollOnce({ sqs, queueUrl, handler, ...options }),
    queueDepth: async (url = queueUrl) => {
      const attributes = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return {
        visible: Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(attributes.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
      };
    },
    close: async () => {
      await tables.drop();
      client.destroy();
      sqs.destroy();
    },
  };
}

export { createWorkerHarness, type WorkerHarness };
