import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { InvalidInputError } from '../errors.js';
import type { WorkItem } from '../store/work-item.js';
import { ENVELOPE_VERSION, type JobEnvelope, serializeEnvelope } from './envelope.js';

/** SendMessageBatch takes at most ten entries. */
const SQS_BATCH_SIZE = 10;

/** The fields of a work row a wake-up names: identity, job type and payload binding, never a body. */
type WakeSubject = Pick<
  WorkItem,
  'tenantId' | 'operationId' | 'jobType' | 'jobVersion' | 'payloadHash' | 'payloadRef' | 'payloadInline'
>;

/**
 * The `wake` envelope for an existing item, naming the job version bound to the row (a worker running another
 * quarantines the wake-up). A row with neither payloadRef nor payloadInline ▶ InvalidInputError.
 */
function wakeEnvelope(item: WakeSubject): JobEnvelope {
  if (item.payloadRef === undefined && item.payloadInline !== true) {
    throw new InvalidInputError('work row has no payload binding (neither payloadRef nor payloadInline)', [
      { path: 'payloadRef', message: 'missing' },
    ]);
  }
  return {
    v: ENVELOPE_VERSION,
    kind: 'wake',
    tenantId: item.tenantId,
    operationId: item.operationId,
    jobType: item.jobType,
    ...(item.jobVersion !== undefined ? { jobVersion: item.jobVersion } : {}),
    payloadHash: item.payloadHash,
    payload: item.payloadRef !== undefined ? { ref: item.payloadRef } : { inline: true },
  };
}

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
 * Sends one `wake` message per item in batches of ten. Never throws for a bad row or a failed batch: a
 * wake-up is only a signal, and a lost one is re-sent by the sweeper from the deadline index.
 */
async function sendWakeSignals(sqs: SQSClient, queueUrl: string, items: readonly WakeSubject[]): Promise<WakeReport> {
  const report: WakeReport = { sent: 0, failed: 0 };
  const fail = (count: number, error: unknown) => {
    report.failed += count;
    report.lastError = describeFailure(error);
  };
  const bodies: string[] = [];
  for (const item of items) {
    try {
      bodies.push(serializeEnvelope(wakeEnvelope(item)));
    } catch (error) {
      fail(1, error);
    }
  }
  for (let start = 0; start < bodies.length; start += SQS_BATCH_SIZE) {
    const chunk = bodies.slice(start, start + SQS_BATCH_SIZE);
    try {
      const output = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((body, index) => ({ Id: String(index), MessageBody: body })),
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

export { sendWakeSignals, type WakeReport, type WakeSubject, wakeEnvelope };
