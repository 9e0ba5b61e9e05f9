import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** A Lambda-shaped SQS handler with partial batch responses. */
type SqsBatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** How one poll behaves, like an event source mapping's settings. */
interface PollOptions {
  sqs: SQSClient;
  queueUrl: string;
  handler: SqsBatchHandler;
  batchSize?: number;
  waitTimeSeconds?: number;
  visibilityTimeoutSeconds?: number;
}

/** What one poll did. */
interface PollResult {
  received: number;
  failed: number;
  deleted: number;
}

/** A message's String attributes as the Lambda event carries them (e.g. the original sender a redrive kept). */
function eventAttributes(message: Message): SQSRecord['messageAttributes'] {
  const attributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    if (value.StringValue !== undefined) {
      attributes[name] = { dataType: value.DataType ?? 'String', stringValue: value.StringValue };
    }
  }
  return attributes;
}

/** Builds the SQS event Lambda would deliver for received messages. */
function toSqsEvent(messages: Message[], queueArn: string): SQSEvent {
  const records: SQSRecord[] = messages.map((message) => ({
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: message.Attributes?.SentTimestamp ?? '0',
      SenderId: message.Attributes?.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: message.Attributes?.ApproximateFirstReceiveTimestamp ?? '0',
    },
    messageAttributes: eventAttributes(message),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  }));
  return { Records: records };
}

/**
 * One round of what the Lambda SQS event source does: receive a batch, invoke the handler, delete the
 * messages it did not report as failed. Failed ones become visible again after the visibility timeout,
 * and a handler that throws leaves the whole batch for redelivery.
 */
async function pollOnce(options: PollOptions): Promise<PollResult> {
  const received = await options.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: options.queueUrl,
      MaxNumberOfMessages: options.batchSize ?? 10,
      WaitTimeSeconds: options.waitTimeSeconds ?? 0,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      ...(options.visibilityTimeoutSeconds !== undefined
        ? { VisibilityTimeout: options.visibilityTimeoutSeconds }
        : {}),
    }),
  );
  const messages = received.Messages ?? [];
  if (messages.length === 0) return { received: 0, failed: 0, deleted: 0 };
  const queueArn = `arn:aws:sqs:us-east-1:000000000000:${options.queueUrl.split('/').pop() ?? 'queue'}`;
  const response = await options.handler(toSqsEvent(messages, queueArn));
  const failedIds = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  const succeeded = messages.filter((message) => !failedIds.has(message.MessageId ?? ''));
  if (succeeded.length > 0) {
    await options.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: succeeded.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle ?? '' })),
      }),
    );
  }
  return { received: messages.length, failed: failedIds.size, deleted: succeeded.length };
}

export { type PollOptions, type PollResult, pollOnce, type SqsBatchHandler, toSqsEvent };
