import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Telemetry } from '../telemetry.js';
import { type TraceCarrier, traceMessageAttributes } from '../tracing/trace-context.js';
import { serializeEnvelope } from './envelope.js';
import { messageGroupOf } from './message-group.js';
import { SQS_MAX_DELAY_SECONDS, type WakeSubject, wakeEnvelope } from './wake-envelope.js';

/**
 * What became of a retry's own wake-up: `sent` (a delayed `wake` message is on the queue), or left to the
 * sweeper because the delay is past SQS's 15-minute limit (`beyond_delay_limit`) or the send failed
 * (`send_failed`). The row is queued with its `availableAt` in every case: the sweeper is the backstop.
 */
type RetryWakeOutcome = 'sent' | 'beyond_delay_limit' | 'send_failed';

/** Schedules the wake-up of a row that was just queued for a retry; never throws (a wake-up is only a signal). */
type RetryWaker = (subject: WakeSubject, retryDelayMs: number, trace?: TraceCarrier) => Promise<RetryWakeOutcome>;

/**
 * Whole seconds to delay a retry's wake-up so that it is never visible before the row is due: the backoff
 * rounded up (the message is sent after the row committed, whose `availableAt` is the commit's start + the
 * backoff). Undefined past SQS's DelaySeconds limit: such a retry is woken by the sweeper.
 */
function retryWakeDelaySeconds(retryDelayMs: number): number | undefined {
  const seconds = Math.max(0, Math.ceil(retryDelayMs / 1000));
  return seconds <= SQS_MAX_DELAY_SECONDS ? seconds : undefined;
}

/**
 * A RetryWaker on the jobs queue: one SendMessage with DelaySeconds per retry, sent after the retry's row
 * committed and before the message that ran it is acknowledged. A duplicate or an early copy only meets the
 * conditional claim (one claim wins, the others are acknowledged as needing no work), so the signal is safe
 * to repeat; a lost one is found by the sweeper once the row is overdue. `sqs` gives the client when the
 * first retry needs it (the SQS SDK is loaded then, not at the worker's cold start).
 */
function createRetryWaker(sqs: () => Promise<SQSClient>, queueUrl: string, telemetry?: Telemetry): RetryWaker {
  return async (subject, retryDelayMs, trace) => {
    const delaySeconds = retryWakeDelaySeconds(retryDelayMs);
    if (delaySeconds === undefined) return 'beyond_delay_limit';
    try {
      const [client, { SendMessageCommand }] = await Promise.all([sqs(), import('@aws-sdk/client-sqs')]);
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: serializeEnvelope(wakeEnvelope(subject)),
          DelaySeconds: delaySeconds,
          // The same group as the producer's message: a tenant's retries queue behind its own backlog only.
          MessageGroupId: messageGroupOf(subject.tenantId),
          // Tracing on: the failed attempt's context, so the retry's run continues its trace.
          ...(trace ? { MessageAttributes: traceMessageAttributes(trace) } : {}),
        }),
      );
      return 'sent';
    } catch (error) {
      telemetry?.warn('retry wake-up not sent: the sweeper wakes the job once it is overdue', {
        identity: { tenantId: subject.tenantId, operationId: subject.operationId },
        jobType: subject.jobType,
        error,
      });
      return 'send_failed';
    }
  };
}

export { createRetryWaker, type RetryWakeOutcome, type RetryWaker, retryWakeDelaySeconds };
