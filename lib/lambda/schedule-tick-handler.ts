import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import * as z from 'zod/mini';
import type { Clock } from '../clock.js';
import { EnvironmentVariable, type LeasefenceConfig, readConfig } from '../config.js';
import { ConfigurationError, InvalidInputError, isLeasefenceError } from '../errors.js';
import { parseInput } from '../internal/validation.js';
import type { ScheduleDeclaration } from '../messaging/schedule.js';
import { type ScheduleTickDependencies, type TickOutcome, tickSchedule } from '../messaging/schedule-tick.js';
import { parseSchedulesVariable } from '../messaging/schedules-variable.js';
import { METRIC_NAMESPACE, METRIC_SCHEDULE_DIMENSION, MetricName, serviceName } from '../metric-names.js';
import { createSqsClient } from '../sqs-client.js';
import { PayloadStore } from '../store/index.js';
import { sqsEndpointOptions } from './clients.js';
import { createJobHandlerClients } from './job-clients.js';
import { describeError } from './sweeper-handler.js';

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
/** The Scheduler target's input: the schedule's name and `<aws.scheduler.scheduled-time>` (ISO 8601, UTC). */
const tickEventSchema = z.lazy(() =>
  z.strictObject({
    schedule: z.string().check(z.minLength(1), z.maxLength(64)),
    scheduledTime: z.iso.datetime({ offset: true }),
  }),
);

/** Options of the tick handler; everything defaults to the Lambda environment. */
interface ScheduleTickHandlerOptions {
  /** Defaults to readConfig(process.env); must name the jobs queue. */
  config?: LeasefenceConfig;
  /** Defaults to LEASEFENCE_SCHEDULES (set by the construct). */
  schedules?: readonly ScheduleDeclaration[];
  clock?: Clock;
}

/** The tick handler: one schedule tick in, its occurrence enqueued (or replayed, or refused) out. */
type ScheduleTickHandler = (event: unknown) => Promise<TickOutcome>;

/** Builds what a tick needs once per container: the stores, the SQS client and the declared schedules. */
function boot(options: ScheduleTickHandlerOptions): ScheduleTickDependencies {
  const config = options.config ?? readConfig();
  if (!config.queueUrl) throw new ConfigurationError('LEASEFENCE_QUEUE_URL is required by the schedule tick');
  const schedules = options.schedules ?? parseSchedulesVariable(process.env[EnvironmentVariable.schedules]);
  const { client, store, clock } = createJobHandlerClients(config, options.clock);
  const payloads = new PayloadStore(client, config.payloadsTable, clock);
  const delayed = { client, jobsTable: config.jobsTable, jobs: [], deadlineShards: config.deadlineShards, clock };
  const sqs = createSqsClient(sqsEndpointOptions(config));
  return { producer: { sqs, queueUrl: config.queueUrl, payloads, delayed }, store, schedules, clock };
}

/**
 * Builds the schedule tick Lambda handler (EventBridge Scheduler target): enqueues the tick's occurrence through
 * tickSchedule, so a duplicate or late delivery of a tick is a replay. Emits ScheduleTicks, ScheduleTickReplays,
 * ScheduleTicksMissed (ticks of the recent window with no job), ScheduleTicksRefused and, per schedule,
 * ScheduleTickDeliveries; logs the schedule name
 * and outcome only, never the payload. A refused tick (unknown schedule, bad input, a time ahead of the clock)
 * returns without throwing, so the Scheduler does not retry it; a store or queue failure throws (retried).
 * @example
 * export const handler = createScheduleTickHandler();
 */
function createScheduleTickHandler(options: ScheduleTickHandlerOptions = {}): ScheduleTickHandler {
  const logger = new Logger({ serviceName: serviceName() });
  const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: serviceName() });
  let deps: ScheduleTickDependencies | undefined;

  return async (event) => {
    deps ??= boot(options);
    try {
      const tick = parseInput(tickEventSchema, event, 'schedule tick');
      const outcome = await tickSchedule(deps, tick.schedule, Date.parse(tick.scheduledTime));
      recordTick(metrics, outcome);
      logger.info('schedule tick', { ...outcome });
      return outcome;
    } catch (error) {
      if (isLeasefenceError(error, InvalidInputError)) {
        const refused: TickOutcome = { outcome: 'refused', reason: 'invalid_tick' };
        recordTick(metrics, refused);
        logger.warn('schedule tick refused', { error: describeError(error) });
        return refused;
      }
      logger.error('schedule tick failed', { error: describeError(error) });
      throw error;
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

/**
 * The tick's counts as metrics (the alarms read ScheduleTicksMissed and ScheduleTicksRefused), and for a tick that
 * landed one ScheduleTickDeliveries under its schedule's name (the silence alarm reads its absence).
 */
function recordTick(metrics: Metrics, outcome: TickOutcome): void {
  if (outcome.outcome === 'refused') {
    metrics.addMetric(MetricName.ScheduleTicksRefused, MetricUnit.Count, 1);
    return;
  }
  const name = outcome.outcome === 'created' ? MetricName.ScheduleTicks : MetricName.ScheduleTickReplays;
  metrics.addMetric(name, MetricUnit.Count, 1);
  metrics.addMetric(MetricName.ScheduleTicksMissed, MetricUnit.Count, outcome.missed);
  // A separate EMF record: the stored metrics share one dimension set, the per-schedule count needs its own.
  const perSchedule = metrics.singleMetric();
  perSchedule.addDimension(METRIC_SCHEDULE_DIMENSION, outcome.schedule);
  perSchedule.addMetric(MetricName.ScheduleTickDeliveries, MetricUnit.Count, 1);
}

export {
  createScheduleTickHandler,
  recordTick,
  type ScheduleTickHandler,
  type ScheduleTickHandlerOptions,
  tickEventSchema,
};
