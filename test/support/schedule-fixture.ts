import type { Clock } from '../../lib/clock.js';
import { createScheduleTickHandler, type ScheduleTickHandler } from '../../lib/lambda/schedule-tick-handler.js';
import type { JobBudget } from '../../lib/messaging/delayed-job.js';
import type { ProducerDependencies } from '../../lib/messaging/producer.js';
import type { ScheduleDeclaration } from '../../lib/messaging/schedule.js';
import type { ScheduleTickDependencies } from '../../lib/messaging/schedule-tick.js';
import { engineEndpoints } from './engine.js';
import type { WorkerHarness } from './worker-harness.js';

/**
 * The rows-first producer a schedule tick enqueues with, on the harness's tables and queue: `jobs` are the job
 * definitions it knows (their attempt budgets; none, like the Lambda tick), on `clock` (default the harness's).
 */
function scheduleProducer(
  harness: WorkerHarness,
  jobs: readonly JobBudget[] = [],
  clock: Clock = harness.clock,
): ProducerDependencies {
  return {
    sqs: harness.sqs,
    queueUrl: harness.queueUrl,
    payloads: harness.payloads,
    delayed: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs, clock },
  };
}

/** What tickSchedule (and the local ScheduleTimer) needs, on the harness: its store, clock and `schedules`. */
function scheduleTickDeps(
  harness: WorkerHarness,
  schedules: readonly ScheduleDeclaration[],
  jobs: readonly JobBudget[] = [],
): ScheduleTickDependencies {
  return { producer: scheduleProducer(harness, jobs), store: harness.store, schedules, clock: harness.clock };
}

/** The Lambda tick handler as the construct deploys it (no job definitions), on the harness's engines and clock. */
function scheduleTickHandler(harness: WorkerHarness, schedules: readonly ScheduleDeclaration[]): ScheduleTickHandler {
  const { dynamo, sqs } = engineEndpoints();
  return createScheduleTickHandler({
    config: {
      jobsTable: harness.tables.jobsTable,
      payloadsTable: harness.tables.payloadsTable,
      queueUrl: harness.queueUrl,
      deadlineShards: 32,
      payloadRetentionDays: 30,
      dynamodbEndpoint: dynamo,
      sqsEndpoint: sqs,
    },
    schedules,
    clock: harness.clock,
  });
}

export { scheduleProducer, scheduleTickDeps, scheduleTickHandler };
