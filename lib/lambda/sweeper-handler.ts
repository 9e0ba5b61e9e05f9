import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ScheduledEvent } from 'aws-lambda';
import { type LeasefenceConfig, readConfig } from '../config.js';
import { ConfigurationError } from '../errors.js';
import type { SqsClientSource } from '../messaging/wake.js';
import { METRIC_NAMESPACE, MetricName, serviceName } from '../metric-names.js';
import type { SweeperStore } from '../store/index.js';
import { sweepFromStoredCursor } from '../sweeper/cursor.js';
import type { SweepSummary } from '../sweeper/sweeper.js';
import { createSweeperClients, lazySqsClient } from './clients.js';

/** Options of the sweeper handler; everything defaults to the Lambda environment. */
interface SweeperHandlerOptions {
  /** Defaults to readConfig(process.env); must name the queue the sweeper re-signals. */
  config?: LeasefenceConfig;
}

/** What one invocation returns: the run's counts, whether a backlog remains, whether its cursor was stored. */
type SweepResult = Omit<SweepSummary, 'cursor'> & { continues: boolean; cursorStored: boolean };

/** The scheduled sweeper handler. */
type SweeperHandler = (event?: Partial<ScheduledEvent>) => Promise<SweepResult>;

interface SweeperContainer {
  store: SweeperStore;
  sqs: SqsClientSource;
  queueUrl: string;
}

/** Error name and message only: no stack, no request data. */
function describeError(error: unknown): Record<string, string> {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: typeof error };
}

/**
 * Builds the sweeper Lambda handler (EventBridge schedule): one bounded pass over the deadline index per
 * invocation, emitting SweptToUnknown, Resignalled, ApprovalsExpired, OldestUnknownAgeSeconds and
 * OldestAwaitingApprovalAgeSeconds and logging counts only.
 * Clients are built on the first invocation, so a missing variable fails that invocation with a
 * ConfigurationError instead of the module load. Each run starts where the last run of any container ended
 * (cursor row `#sweeper` in the jobs table); a failed run stores nothing, so the next starts where it did.
 * @example
 * export const handler = createSweeperHandler();
 */
function createSweeperHandler(options: SweeperHandlerOptions = {}): SweeperHandler {
  const logger = new Logger({ serviceName: serviceName() });
  const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: serviceName() });
  let container: SweeperContainer | undefined;

  const boot = (): SweeperContainer => {
    const config = options.config ?? readConfig();
    if (!config.queueUrl) throw new ConfigurationError('LEASEFENCE_QUEUE_URL is required by the sweeper');
    const { store } = createSweeperClients(config);
    // Built (and the SQS SDK loaded) on the first run that has a due row to wake: an idle sweep never loads it.
    return { store, sqs: lazySqsClient(config), queueUrl: config.queueUrl };
  };

  return async () => {
    container ??= boot();
    try {
      const summary = await sweepFromStoredCursor(container);
      metrics.addMetric(MetricName.SweptToUnknown, MetricUnit.Count, summary.sweptToUnknown);
      metrics.addMetric(MetricName.Resignalled, MetricUnit.Count, summary.resignalled);
      metrics.addMetric(MetricName.OldestUnknownAgeSeconds, MetricUnit.Seconds, summary.oldestUnknownAgeSeconds);
      metrics.addMetric(MetricName.ApprovalsExpired, MetricUnit.Count, summary.approvalsExpired);
      const awaitingAge = summary.oldestAwaitingApprovalAgeSeconds;
      metrics.addMetric(MetricName.OldestAwaitingApprovalAgeSeconds, MetricUnit.Seconds, awaitingAge);
      const { cursor: _cursor, ...counts } = summary;
      const result = { ...counts, continues: summary.cursor !== undefined };
      logger.info('sweep finished', { ...result });
      return result;
    } catch (error) {
      logger.error('sweep failed', { error: describeError(error) });
      throw error;
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

export { createSweeperHandler, describeError, type SweeperHandler, type SweeperHandlerOptions, type SweepResult };
