import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** How the jobs queue relates to the worker that consumes it. */
interface QueueOptions {
  workerTimeout: Duration;
  maxBatchingWindow: Duration;
  maxReceiveCount: number;
  /** Explicit visibility timeout; must not be below the recommended minimum. */
  visibilityTimeout?: Duration;
  removalPolicy: RemovalPolicy;
  /** Customer-managed key; without it both queues use the AWS-managed key (alias/aws/sqs). */
  encryptionKey?: kms.IKey;
}

/**
 * Largest message both queues take: SQS's maximum (1 MiB since 2025), so a job message carrying a payload body
 * (at most MAX_PAYLOAD_BYTES of canonical JSON, lib/hashing.ts) plus its envelope always fits, on the DLQ too.
 */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/** AWS guidance for SQS event sources: visibility ≥ 6 × function timeout + the batching window. */
function minimumVisibilityTimeout(workerTimeout: Duration, maxBatchingWindow: Duration): Duration {
  return Duration.seconds(6 * workerTimeout.toSeconds() + maxBatchingWindow.toSeconds());
}

/** The visibility timeout, checked: at least 6 × worker timeout + batching window, at most 12 hours. */
function visibilityOf(options: QueueOptions): Duration {
  const minimum = minimumVisibilityTimeout(options.workerTimeout, options.maxBatchingWindow);
  const visibilityTimeout = options.visibilityTimeout ?? minimum;
  if (visibilityTimeout.toSeconds() < minimum.toSeconds()) {
    throw new Error(
      `visibilityTimeout ${visibilityTimeout.toSeconds()}s is below 6 x worker timeout + batching window (${minimum.toSeconds()}s)`,
    );
  }
  if (visibilityTimeout.toSeconds() > 43_200) {
    throw new Error(`visibilityTimeout ${visibilityTimeout.toSeconds()}s exceeds the SQS maximum of 12 hours`);
  }
  return visibilityTimeout;
}

function encryptionOf(options: QueueOptions): Pick<sqs.QueueProps, 'encryption' | 'encryptionMasterKey'> {
  return options.encryptionKey
    ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: options.encryptionKey }
    : { encryption: sqs.QueueEncryption.KMS_MANAGED };
}

/**
 * The jobs queue (wake-up signals only; the work row is the truth) and its DLQ: SSE-KMS (customer-managed
 * `encryptionKey`, else AWS-managed),
 * TLS-only policies, redrive after maxReceiveCount, visibility timeout ≥ 6 × worker timeout.
 */
function createQueues(scope: Construct, options: QueueOptions): { queue: sqs.Queue; deadLetterQueue: sqs.Queue } {
  if (!Number.isInteger(options.maxReceiveCount) || options.maxReceiveCount < 1 || options.maxReceiveCount > 1000) {
    throw new Error(`maxReceiveCount must be an integer in 1..1000, got ${options.maxReceiveCount}`);
  }
  visibilityOf(options);
  const encryption = encryptionOf(options);
  const deadLetterQueue = new sqs.Queue(scope, 'DeadLetterQueue', {
    ...encryption,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    maxMessageSizeBytes: MAX_MESSAGE_BYTES,
    removalPolicy: options.removalPolicy,
  });
  const queue = createJobsQueue(scope, 'JobsQueue', deadLetterQueue, options);
  return { queue, deadLetterQueue };
}

/**
 * A queue of job messages (the jobs queue, or the bulk lane's): SSE-KMS as `encryptionKey` says, TLS only, 4 days'
 * retention, redrive to `deadLetterQueue` after maxReceiveCount, visibility timeout ≥ 6 × worker timeout.
 */
function createJobsQueue(scope: Construct, id: string, deadLetterQueue: sqs.IQueue, options: QueueOptions): sqs.Queue {
  return new sqs.Queue(scope, id, {
    ...encryptionOf(options),
    enforceSSL: true,
    visibilityTimeout: visibilityOf(options),
    retentionPeriod: Duration.days(4),
    maxMessageSizeBytes: MAX_MESSAGE_BYTES,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: options.maxReceiveCount },
    removalPolicy: options.removalPolicy,
  });
}

export { createJobsQueue, createQueues, minimumVisibilityTimeout, type QueueOptions };
