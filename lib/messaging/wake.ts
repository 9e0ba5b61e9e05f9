import type { SQSClient } from '@aws-sdk/client-sqs';
import { type TraceCarrier, traceMessageAttributes } from '../tracing/trace-context.js';
import { serializeEnvelope } from './envelope.js';
import { messageGroupOf } from './message-group.js';
import { type WakeSubject, wakeEnvelope } from './wake-envelope.js';

/** An SQS client, or a loader of one called on the first wake-up that has something to send (the SDK loads then). */
type SqsClientSource = SQSClient | (() => Promise<SQSClient>);

/** The client a source gives: itself, or what its loader resolves to (a failed load rejects). */
function resolveSqsClient(sqs: SqsClientSource): Promise<SQSClient> {
  return typeof sqs === 'function' ? sqs() : Promise.resolve(sqs);
}

/** SendMessageBatch takes at most ten entries. */
const SQS_BATCH_SIZE = 10;

/** How many wake-ups went out; `failed` ones are found again by the sweeper (the row is the truth). */
interface WakeReport {
  sent: number;
  failed: number;
  /** The last failure, for the caller's log (an SQS error or a malformed row; never a payload). */
  lastError?: { name: string; message: string };
}

/** A failure as name and message; an SQS per-entry failure is no Error, so it comes as such a pair already. */
function describeFailure(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  const named = error as { name?: unknown; message?: unknown } | undefined;
  if (typeof named?.name === 'string' && typeof named.message === 'string')
    return { name: named.name, message: named.message };
  return { name: 'Error', message: String(error) };
}

/**
 * Sends one `wake` message per item in batches of ten, each with `traces[i]` (tracing on) as its trace context
 * attributes. Never throws for a bad row or a failed batch: a wake-up is only a signal, and a lost one is re-sent
 * by the sweeper from the deadline index.
 */
async function sendWakeSignals(
  sqs: SqsClientSource,
  queueUrl: string,
  items: readonly WakeSubject[],
  traces?: readonly (TraceCarrier | undefined)[],
): Promise<WakeReport> {
  const report: WakeReport = { sent: 0, failed: 0 };
  const fail = (count: number, error: unknown) => {
    report.failed += count;
    report.lastError = describeFailure(error);
  };
  const bodies: { body: string; group: string; trace: TraceCarrier | undefined }[] = [];
  for (const [index, item] of items.entries()) {
    try {
      // The same group as the producer's message: a tenant's wake-ups queue behind its own backlog only.
      const group = messageGroupOf(item.tenantId);
      bodies.push({ body: serializeEnvelope(wakeEnvelope(item)), group, trace: traces?.[index] });
    } catch (error) {
      fail(1, error);
    }
  }
  if (bodies.length === 0) return report;
  // Loaded here, not at import: the worker and the sweeper bundle this module, but only a successor or a due row
  // needs a wake-up, so the SQS SDK stays out of their cold start. A failed load fails these wake-ups, never throws.
  const ready = await Promise.all([import('@aws-sdk/client-sqs'), resolveSqsClient(sqs)]).catch((error: unknown) =>
    fail(bodies.length, error),
  );
  if (!ready) return report;
  const [sdk, client] = ready;
  for (let start = 0; start < bodies.length; start += SQS_BATCH_SIZE) {
    const chunk = bodies.slice(start, start + SQS_BATCH_SIZE);
    try {
      const output = await client.send(
        new sdk.SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map(({ body, group, trace }, index) => ({
            Id: String(index),
            MessageBody: body,
            MessageGroupId: group,
            ...(trace ? { MessageAttributes: traceMessageAttributes(trace) } : {}),
          })),
        }),
      );
      report.sent += output.Successful?.length ?? 0;
      const failed = output.Failed ?? [];
      if (failed.length > 0) {
        fail(failed.length, {
          name: 'SendMessageBatchFailed',
          message: `${failed[0]?.Code}: ${failed[0]?.Message ?? ''}`,
        });
      }
    } catch (error) {
      fail(chunk.length, error);
    }
  }
  return report;
}

export { resolveSqsClient, type SqsClientSource, sendWakeSignals, type WakeReport };
