import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** A received message: its body, attributes and the id SQS gave it. */
interface ReceivedMessage {
  messageId: string;
  body: string;
  attributes: Record<string, string | undefined>;
}

/**
 * Receives and deletes every message currently in the queue (short polls until `emptyPolls` come back
 * empty in a row). In-process fauxqs answers deterministically; the repeat guards against a sampled empty.
 */
async function drainQueue(sqs: SQSClient, queueUrl: string, emptyPolls = 2): Promise<ReceivedMessage[]> {
  const received: ReceivedMessage[] = [];
  let empty = 0;
  while (empty < emptyPolls) {
    const output = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 300,
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = output.Messages ?? [];
    if (messages.length === 0) {
      empty += 1;
      continue;
    }
    empty = 0;
    for (const message of messages) {
      const attributes: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) attributes[name] = value.StringValue;
      received.push({ messageId: message.MessageId ?? '', body: message.Body ?? '', attributes });
    }
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle ?? '' })),
      }),
    );
  }
  return received;
}

export { drainQueue, type ReceivedMessage };
