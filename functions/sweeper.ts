import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ScheduledEvent } from 'aws-lambda';
import { readConfig } from '../lib/config.js';
import { ConfigurationError } from '../lib/errors.js';
import { createHandlerClients } from '../lib/lambda/clients.js';
import { METRIC_NAMESPACE, MetricName, serviceName } from '../lib/metric-names.js';
import type { WorkItemStore } from '../lib/store/work-item-store.js';
import { type SweepCursor, type SweepSummary, sweep } from '../lib/sweeper.js';

/**
 * The sweeper Lambda (EventBridge schedule): one bounded pass over the deadline index per invocation.
 * Clients are built once per container; the continuation cursor lives in memory between warm invocations
 * (a cold start begins again at shard 0, which loses nothing: the index is the truth).
 */

const logger = new Logger({ serviceName: serviceName() });
const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: serviceName() });

interface SweeperContainer {
  store: WorkItemStore;
  sqs: SQSClient;
  queueUrl: string;
}

let container: SweeperContainer | undefined;
let cursor: SweepCursor | undefined;

function boot(): SweeperContainer {
  const config = readConfig();
  if (!config.queueUrl) throw new ConfigurationError('LEASEFENCE_QUEUE_URL is required by the sweeper');
  const { sqs, store } = createHandlerClients(config);
  return { store, sqs, queueUrl: config.queueUrl };
}

/** What the handler returns: the run's counts (the cursor stays inside: it holds raw keys). */
type SweepResult = Omit<SweepSummary, 'cursor'> & { continues: boolean };

/** Runs one sweep, emits SweptToUnknown, Resignalled and OldestUnknownAgeSeconds, logs counts only. */
async function handler(_event?: Partial<ScheduledEvent>): Promise<SweepResult> {
  container ??= boot();
  try {
    const summary = await sweep({ ...container, ...(cursor ? { cursor } : {}) });
    cursor = summary.cursor;
    metrics.addMetric(MetricName.SweptToUnknown, MetricUnit.Count, summary.sweptToUnknown);
    metrics.addMetric(MetricName.Resignalled, MetricUnit.Count, summary.resignalled);
    metrics.addMetric(MetricName.OldestUnknownAgeSeconds, MetricUnit.Seconds, summary.oldestUnknownAgeSeconds);
    const { cursor: _cursor, ...counts } = summary;
    const result = { ...counts, continues: summary.cursor !== undefined };
    logger.info('sweep finished', { ...result });
    return result;
  } catch (error) {
    // A failed run restarts from the first shard next time; nothing is lost, work is at most repeated.
    cursor = undefined;
    logger.error('sweep failed', {
      error: error instanceof Error ? { name: error.name, message: error.message } : 'unknown',
    });
    throw error;
  } finally {
    metrics.publishStoredMetrics();
  }
}

export { handler, type SweepResult };
