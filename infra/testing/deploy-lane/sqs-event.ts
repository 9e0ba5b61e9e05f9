import type { Message } from '@aws-sdk/client-sqs';
import type { DeployedMapping } from './read-back.js';

/** One record of the SQS event Lambda's poller hands a function (the shape @types/aws-lambda calls SQSRecord). */
interface SqsEventRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, string>;
  messageAttributes: Record<string, Record<string, unknown>>;
  md5OfBody: string;
  eventSource: 'aws:sqs';
  eventSourceARN: string;
  awsRegion: string;
}

/** A batch as Lambda delivers it: `{ Records: [...] }` with the receive's attributes, message attributes in camelCase. */
function toSqsEvent(messages: readonly Message[], queueArn: string, region: string): { Records: SqsEventRecord[] } {
  return {
    Records: messages.map((message) => ({
      messageId: String(message.MessageId),
      receiptHandle: String(message.ReceiptHandle),
      body: message.Body ?? '',
      attributes: { ...message.Attributes },
      messageAttributes: Object.fromEntries(
        Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
          name,
          {
            dataType: value.DataType,
            stringListValues: [],
            binaryListValues: [],
            ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
            ...(value.BinaryValue !== undefined
              ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
              : {}),
          },
        ]),
      ),
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: region,
    })),
  };
}

/** What one invocation answered: a function error (no batch acknowledged) or its JSON response. */
type InvocationResult =
  | { readonly functionError: true }
  | { readonly functionError: false; readonly response: unknown };

/**
 * The messages Lambda deletes after an invocation, as its SQS poller does: none on a function error; with
 * ReportBatchItemFailures, all but the reported ids (none when the response names an id not in the batch or is
 * malformed: the whole batch fails); without it, all.
 */
function messagesToDelete(
  batch: readonly SqsEventRecord[],
  result: InvocationResult,
  mapping: Pick<DeployedMapping, 'reportBatchItemFailures'>,
): SqsEventRecord[] {
  if (result.functionError) return [];
  if (!mapping.reportBatchItemFailures) return [...batch];
  const response = result.response as { batchItemFailures?: unknown } | null | undefined;
  if (response === null || response === undefined || response.batchItemFailures === undefined) return [...batch];
  if (!Array.isArray(response.batchItemFailures)) return [];
  const ids = new Set(batch.map((record) => record.messageId));
  const failed = new Set<string>();
  for (const failure of response.batchItemFailures as Array<{ itemIdentifier?: unknown }>) {
    if (typeof failure?.itemIdentifier !== 'string' || !ids.has(failure.itemIdentifier)) return [];
    failed.add(failure.itemIdentifier);
  }
  return batch.filter((record) => !failed.has(record.messageId));
}

/** `rate(1 minute)`, `rate(5 minutes)`, `rate(30 seconds)` ▶ milliseconds; any other expression ▶ Error. */
function rateIntervalMs(expression: string): number {
  const match = /^rate\((\d+) (second|minute|hour|day)s?\)$/.exec(expression.trim());
  if (!match) throw new Error(`schedule ${expression}: only rate(...) expressions are run by the lane`);
  const unit = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 }[match[2] as 'second'];
  return Number(match[1]) * unit;
}

export { type InvocationResult, messagesToDelete, rateIntervalMs, type SqsEventRecord, toSqsEvent };
