import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EnvironmentVariable } from '../../lib/config.js';
import { InvalidInputError } from '../../lib/errors.js';
import { LIMIT } from './capacity-limits.js';
import { createJobsQueue, type QueueOptions } from './queues.js';

/**
 * Priorities (README.md, "Flow control: rate limits and priorities"): a second queue, the bulk lane, that the worker consumes through its own event
 * source mapping capped at `bulkMaxConcurrency`. The urgent lane (the jobs queue) keeps its own maximum concurrency,
 * and the worker's reserved concurrency covers both, so bulk work can never take the capacity urgent work needs.
 */
interface PrioritiesProps {
  /** Concurrent worker invocations the bulk lane may use at most (2..1000, AWS's range for maximum concurrency). */
  readonly bulkMaxConcurrency: number;
}

/** The bulk lane's cap, checked (0 without priorities); InvalidInputError outside AWS's range. */
function bulkConcurrencyOf(priorities: PrioritiesProps | undefined): number {
  if (priorities === undefined) return 0;
  const value = priorities.bulkMaxConcurrency;
  if (!Number.isInteger(value) || value < LIMIT.maxConcurrencyMin || value > LIMIT.maxConcurrencyMax) {
    const message = `must be an integer in ${LIMIT.maxConcurrencyMin}..${LIMIT.maxConcurrencyMax}, got ${value}`;
    throw new InvalidInputError(`priorities.bulkMaxConcurrency: ${message}`, [
      { path: 'priorities.bulkMaxConcurrency', message },
    ]);
  }
  return value;
}

/** What wiring the bulk lane needs from the construct. */
interface BulkLaneOptions extends QueueOptions {
  readonly worker: lambda.Function;
  readonly deadLetterQueue: sqs.IQueue;
  readonly batchSize: number;
  readonly bulkMaxConcurrency: number;
}

/**
 * The bulk queue (same encryption, TLS-only policy, DLQ and visibility as the jobs queue), its event source mapping
 * on the worker capped at bulkMaxConcurrency, the worker's variable naming it and its grants there: consume, and
 * send (a bulk job's own wake-ups go back to its lane).
 */
function addBulkLane(scope: Construct, options: BulkLaneOptions): sqs.Queue {
  const queue = createJobsQueue(scope, 'BulkQueue', options.deadLetterQueue, options);
  options.worker.addEnvironment(EnvironmentVariable.bulkQueueUrl, queue.queueUrl);
  options.worker.addEventSourceMapping('BulkQueue', {
    eventSourceArn: queue.queueArn,
    batchSize: options.batchSize,
    maxBatchingWindow: options.maxBatchingWindow,
    maxConcurrency: options.bulkMaxConcurrency,
    reportBatchItemFailures: true,
  });
  options.worker.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'ConsumeAndWakeBulkLane',
      actions: [
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:GetQueueAttributes',
        'sqs:SendMessage',
      ],
      resources: [queue.queueArn],
    }),
  );
  return queue;
}

/** A producer's SendMessage on the bulk lane (grantSendJobs adds it when the construct has one). */
function bulkSendStatement(queue: sqs.IQueue): iam.PolicyStatement {
  return new iam.PolicyStatement({ sid: 'SendBulkJobs', actions: ['sqs:SendMessage'], resources: [queue.queueArn] });
}

export { addBulkLane, bulkConcurrencyOf, bulkSendStatement, type PrioritiesProps };
