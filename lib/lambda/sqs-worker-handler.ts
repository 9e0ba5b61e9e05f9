import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Clock } from '../clock.js';
import { type LeasefenceConfig, readConfig } from '../config.js';
import type { FaultPlanSource } from '../fault-injection/plan.js';
import type { IdentifierKey } from '../hashing.js';
import { type AnyJobDefinition, JobRegistry } from '../job-definition.js';
import { createRetryWaker } from '../messaging/retry-wake.js';
import { type MessageSender, ORIGINAL_SENDER_ATTRIBUTE } from '../messaging/sender-tenants.js';
import { METRIC_NAMESPACE, serviceName } from '../metric-names.js';
import { DAY_MS } from '../rules.js';
import { PayloadStore } from '../store/index.js';
import { powertoolsTelemetry, type Telemetry } from '../telemetry.js';
import { loadOpenTelemetryTracer } from '../tracing/open-telemetry.js';
import { parseTraceCarrier } from '../tracing/trace-context.js';
import type { JobTracer } from '../tracing/tracer.js';
import type { PayloadResolver } from '../worker/load-payload.js';
import { type MessageResult, WorkerRuntime } from '../worker/worker-runtime.js';
import { lazySqsClient } from './clients.js';
import { faultSwitch } from './fault-switch.js';
import { identifierKeyLoader } from './identifier-key.js';
import { createJobHandlerClients } from './job-clients.js';

/** Options of the SQS worker handler: the job types it runs and how to reach its resources. */
interface SqsWorkerHandlerOptions {
  jobs: readonly AnyJobDefinition[];
  payloadResolver?: PayloadResolver;
  /** Defaults to readConfig(process.env). */
  config?: LeasefenceConfig;
  clock?: Clock;
  telemetry?: Telemetry;
  workerId?: string;
  heartbeatIntervalMs?: number;
  /**
   * Where a stack check's fault plan is read (the local stack gives one); by default the construct's fault-plan
   * secret when LEASEFENCE_FAULT_PLAN_SECRET_ARN is set. Neither: no fault layer (lib/lambda/fault-switch.ts).
   */
  faultPlan?: FaultPlanSource;
  /**
   * Emit OpenTelemetry spans (README.md, "Tracing"): process, claim, run, steps, fenced writes, completion and each
   * successor's wake-up, continuing the trace context the message carries. Off by default: the OpenTelemetry API is
   * then never loaded. On without `@opentelemetry/api` resolvable ▶ ConfigurationError on the first invocation.
   */
  tracing?: boolean;
  /** How an in-process wait for a provider budget sleeps (flow control); default a timer. Tests move a manual clock. */
  sleep?: (ms: number) => Promise<void>;
}

/** The Lambda handler plus the runtime behind it (for local use and tests). */
type SqsWorkerHandler = ((event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>) & {
  runtime: WorkerRuntime;
  /** The DynamoDB client of this container (for tooling and fault injection in tests). */
  client: DynamoDBDocumentClient;
};

const BULK_LANE = { lane: 'bulk' } as const;

/** Who sent a record, as SQS stamped it (SenderId), and the original sender a redrive kept in an attribute. */
function senderOf(record: SQSRecord): MessageSender {
  const relayedFrom = record.messageAttributes?.[ORIGINAL_SENDER_ATTRIBUTE]?.stringValue;
  return {
    ...(record.attributes?.SenderId ? { senderId: record.attributes.SenderId } : {}),
    ...(relayedFrom ? { relayedFrom } : {}),
  };
}

/** The trace context a record's message attributes carry (tracing on only), or nothing. */
function traceOf(record: SQSRecord): { trace?: NonNullable<ReturnType<typeof parseTraceCarrier>> } {
  const trace = parseTraceCarrier((name) => record.messageAttributes?.[name]?.stringValue);
  return trace ? { trace } : {};
}

/**
 * Builds the SQS worker Lambda handler with partial batch responses: a record is reported as failed (and so
 * redelivered) only when its work row could not be committed; everything else is acknowledged. With a queue URL
 * in the configuration (the construct sets it) a retryable failure sends its own delayed wake-up first. With
 * LEASEFENCE_SENDER_TENANTS set, a record whose SenderId may not produce for the tenant it names is quarantined.
 * @example
 * export const handler = createSqsWorkerHandler({ jobs: [refundJob, statementJob] });
 */
function createSqsWorkerHandler(options: SqsWorkerHandlerOptions): SqsWorkerHandler {
  const config = options.config ?? readConfig();
  const { client, store, clock } = createJobHandlerClients(config, options.clock);
  const sqs = lazySqsClient(config);
  const logger = new Logger({ serviceName: serviceName() });
  const metrics = new Metrics({
    namespace: METRIC_NAMESPACE,
    serviceName: serviceName(),
  });
  // The key is read on the first invocation (async, once per container); identities are withheld until then.
  const loadKey = identifierKeyLoader(config);
  let identifierKey: IdentifierKey | undefined;
  const faults = faultSwitch({ config, plan: options.faultPlan });
  faults.attach(client);
  const telemetry = faults.observe(options.telemetry ?? powertoolsTelemetry(logger, metrics, () => identifierKey));
  let tracer: JobTracer | undefined;
  const runtime = new WorkerRuntime({
    store,
    client,
    registry: new JobRegistry(options.jobs),
    payloads: new PayloadStore(client, config.payloadsTable, clock, config.payloadRetentionDays * DAY_MS),
    telemetry,
    // A retry wakes itself on the queue it came from (the construct sets the URL); the sweeper is the backstop.
    ...(config.queueUrl ? { retryWaker: createRetryWaker(sqs, config.queueUrl, telemetry) } : {}),
    // With priorities, the bulk lane's wake-ups go back to the bulk queue.
    ...(config.bulkQueueUrl ? { bulkRetryWaker: createRetryWaker(sqs, config.bulkQueueUrl, telemetry) } : {}),
    ...(options.payloadResolver ? { payloadResolver: options.payloadResolver } : {}),
    ...(options.workerId ? { workerId: options.workerId } : {}),
    ...(options.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: options.heartbeatIntervalMs } : {}),
    disabledJobTypes: config.disabledJobTypes ?? [],
    ...(config.inlinePayloads ? { inlinePayloads: config.inlinePayloads } : {}),
    ...(config.senderTenants ? { senderTenants: config.senderTenants } : {}),
    ...(config.queueUrl !== undefined ? { wake: { sqs, queueUrl: config.queueUrl } } : {}),
    ...(options.tracing ? { tracer: () => tracer } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(faults.observeProvider ? { observeProvider: faults.observeProvider } : {}),
  });
  // A queue URL ends with the queue's name, as its ARN does: a record from the bulk queue is in the bulk lane.
  const bulkQueueName = config.bulkQueueUrl?.split('/').pop();
  const recordHandler = (record: SQSRecord): Promise<MessageResult> =>
    faults.route(record, () =>
      runtime.handleMessage({
        messageId: record.messageId,
        body: record.body,
        receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
        sender: senderOf(record),
        ...(bulkQueueName !== undefined && record.eventSourceARN?.endsWith(`:${bulkQueueName}`) ? BULK_LANE : {}),
        ...(tracer ? traceOf(record) : {}),
      }),
    );
  const handler = async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const processor = new BatchProcessor(EventType.SQS);
    try {
      identifierKey ??= (await loadKey()).key;
      // Loaded here, not at import: with tracing off the OpenTelemetry API is never loaded.
      if (options.tracing) tracer ??= await loadOpenTelemetryTracer(() => identifierKey);
      return await processPartialResponse(event, recordHandler, processor, {
        ...(context ? { context } : {}),
        throwOnFullBatchFailure: false,
      });
    } finally {
      if (!options.telemetry) metrics.publishStoredMetrics();
    }
  };
  return Object.assign(handler, { runtime, client });
}

export { createSqsWorkerHandler, type SqsWorkerHandler, type SqsWorkerHandlerOptions };
