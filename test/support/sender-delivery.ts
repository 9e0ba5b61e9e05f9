import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { toSqsEvent } from '../../infra/local/sqs-event-source.js';
import type { WorkerHarness } from './worker-harness.js';

/** A worker handler of the harness (the real SQS handler, counting telemetry). */
type HarnessHandler = ReturnType<WorkerHarness['worker']>;

/**
 * Receives what is queued (up to 10), stamps each record with `senderId` as SQS would (undefined: no SenderId at
 * all), runs the handler on them as one event, then deletes them. The messages' own attributes are kept (a relay's
 * recorded original sender among them).
 */
async function deliverAs(
  harness: WorkerHarness,
  handler: HarnessHandler,
  senderId: string | undefined,
): Promise<{ response: SQSBatchResponse; received: number }> {
  const received = await harness.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: harness.queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  const messages = received.Messages ?? [];
  const event: SQSEvent = toSqsEvent(messages, 'arn:aws:sqs:us-east-1:000000000000:jobs');
  for (const record of event.Records) {
    if (senderId === undefined) delete (record.attributes as Partial<typeof record.attributes>).SenderId;
    else record.attributes.SenderId = senderId;
  }
  const response = await handler(event);
  if (messages.length > 0) {
    await harness.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: harness.queueUrl,
        Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle ?? '' })),
      }),
    );
  }
  return { response, received: messages.length };
}

export { deliverAs, type HarnessHandler };
