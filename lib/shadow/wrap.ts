import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { type Clock, systemClock } from '../clock.js';
import { type LeasefenceConfig, readConfig } from '../config.js';
import { ConfigurationError } from '../errors.js';
import { parseInput } from '../internal/validation.js';
import { jobHandlerClientsWith } from '../lambda/job-clients.js';
import { METRIC_NAMESPACE, serviceName } from '../metric-names.js';
import { DAY_MS, RetentionDays } from '../rules.js';
import { ShadowStore } from '../store/index.js';
import { powertoolsTelemetry, type Telemetry } from '../telemetry.js';
import { type IdentifyMessage, type OpenExecution, ShadowRecorder } from './recorder.js';

/** Options of shadow mode. */
interface ShadowOptions {
  /** The team's function: message ▶ {tenantId, operationId, jobType, payload}. */
  identify: IdentifyMessage;
  /**
   * The lease leasefence would have held for one execution (ms, default 30,000: use the queue's visibility
   * timeout). A later execution starting inside it, while the earlier one never ended, counts as concurrent.
   */
  leaseMs?: number;
  /** Bound on each shadow write (ms, default 1,000): a slower write is abandoned and counted, never waited out. */
  writeTimeoutMs?: number;
  /** Days a shadow row is kept (TTL, default RetentionDays.default). */
  retentionDays?: number;
  /** Defaults to readConfig(process.env): only the jobs table (and endpoint) is used. */
  config?: LeasefenceConfig;
  clock?: Clock;
  /** Defaults to Powertools Logger and Metrics (EMF), published after each invocation. */
  telemetry?: Telemetry;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const boundsSchema = z.lazy(() =>
  z.object({
    leaseMs: z._default(z.number().check(z.int(), z.gte(1), z.lte(43_200_000)), 30_000),
    writeTimeoutMs: z._default(z.number().check(z.int(), z.gte(1), z.lte(60_000)), 1_000),
    retentionDays: z._default(
      z.number().check(z.int(), z.gte(RetentionDays.min), z.lte(RetentionDays.max)),
      RetentionDays.default,
    ),
  }),
);

/** A wrapped handler, with the DynamoDB client its shadow writes use (for tooling and fault injection in tests). */
type Shadowed<F> = F & { client: DynamoDBDocumentClient };

/** A recorder, how to publish its metrics after an invocation, and its client. */
function createRecorder(options: ShadowOptions): {
  recorder: ShadowRecorder;
  flush: () => void;
  client: DynamoDBDocumentClient;
} {
  if (typeof options.identify !== 'function') throw new ConfigurationError('shadow: identify must be a function');
  const bounds = parseInput(boundsSchema, options, 'shadow options');
  const config = options.config ?? readConfig();
  const { client, store, clock } = jobHandlerClientsWith(config, options.clock ?? systemClock, ShadowStore);
  const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: serviceName() });
  // Identifiers are withheld from these logs (no key is loaded): the shadow path logs only failures.
  const telemetry =
    options.telemetry ?? powertoolsTelemetry(new Logger({ serviceName: serviceName() }), metrics, () => undefined);
  const recorder = new ShadowRecorder({
    claims: store.shadow,
    clock,
    telemetry,
    identify: options.identify,
    leaseMs: bounds.leaseMs,
    retentionMs: bounds.retentionDays * DAY_MS,
    writeTimeoutMs: bounds.writeTimeoutMs,
  });
  // Only failures are counted: an invocation without one publishes nothing (and logs no empty-metrics warning).
  const flush = () => {
    if (!options.telemetry && metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { recorder, flush, client };
}

/** The message ids a handler's result reports as failed (partial batch response), if it returned one. */
function failedIds(result: unknown): Set<string> {
  const failures = (result as { batchItemFailures?: unknown } | null | undefined)?.batchItemFailures;
  if (!Array.isArray(failures)) return new Set();
  return new Set(failures.map((failure) => String((failure as { itemIdentifier?: unknown }).itemIdentifier)));
}

/**
 * Wraps a whole SQS handler (plain, or Powertools BatchProcessor/processPartialResponse): records a shadow start
 * for every message before it runs and an end after (failed: in batchItemFailures, or the handler threw). The
 * handler's arguments, result and errors pass through unchanged; shadow writes never throw into it. Put it where
 * the side effects run: outside an existing dedupe, every delivery counts as an execution (use
 * shadowRecordHandler inside makeIdempotent instead).
 * @example
 * export const handler = shadowHandler(existingHandler, {
 *   identify: (record) => { const body = JSON.parse(record.body); return { tenantId: body.tenant, operationId: body.refundId, jobType: 'refund', payload: body }; },
 * });
 */
function shadowHandler<A extends unknown[], R>(
  handler: (event: SQSEvent, ...rest: A) => Promise<R>,
  options: ShadowOptions,
): Shadowed<(event: SQSEvent, ...rest: A) => Promise<R>> {
  const { recorder, flush, client } = createRecorder(options);
  const wrapped = async (event: SQSEvent, ...rest: A): Promise<R> => {
    const records = event?.Records ?? [];
    const opened = await Promise.all(records.map((record) => recorder.start(record)));
    const endAll = (failed: (record: SQSRecord) => boolean) =>
      Promise.all(records.map((record, index) => recorder.end(opened[index], failed(record) ? 'failed' : 'succeeded')));
    try {
      const result = await handler(event, ...rest);
      const failures = failedIds(result);
      await endAll((record) => failures.has(record.messageId));
      return result;
    } catch (error) {
      await endAll(() => true);
      throw error;
    } finally {
      flush();
    }
  };
  return Object.assign(wrapped, { client });
}

/**
 * Wraps the function that handles one SQS record (the one a BatchProcessor calls, or the one makeIdempotent
 * wraps): records a shadow start before it runs and an end after (failed when it throws). Arguments, result and
 * errors pass through unchanged; shadow writes never throw into it. Placed inside makeIdempotent, it records only
 * the executions the existing dedupe let run.
 * @example
 * const processRecord = makeIdempotent(shadowRecordHandler(chargeCard, { identify }), { persistenceStore });
 */
function shadowRecordHandler<A extends unknown[], R>(
  handler: (record: SQSRecord, ...rest: A) => Promise<R>,
  options: ShadowOptions,
): Shadowed<(record: SQSRecord, ...rest: A) => Promise<R>> {
  const { recorder, flush, client } = createRecorder(options);
  const wrapped = async (record: SQSRecord, ...rest: A): Promise<R> => {
    const open: OpenExecution | undefined = await recorder.start(record);
    try {
      const result = await handler(record, ...rest);
      await recorder.end(open, 'succeeded');
      return result;
    } catch (error) {
      await recorder.end(open, 'failed');
      throw error;
    } finally {
      flush();
    }
  };
  return Object.assign(wrapped, { client });
}

export { type Shadowed, type ShadowOptions, shadowHandler, shadowRecordHandler };
