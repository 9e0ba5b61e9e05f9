import { describe, expect, it } from 'vitest';
import { messagesToDelete, rateIntervalMs, toSqsEvent } from '../../../../infra/testing/deploy-lane/sqs-event.js';

const QUEUE = 'arn:aws:sqs:us-east-1:123456789012:jobs';
const batch = toSqsEvent(
  [
    { MessageId: 'a', ReceiptHandle: 'ra', Body: '{}', Attributes: { ApproximateReceiveCount: '1' } },
    {
      MessageId: 'b',
      ReceiptHandle: 'rb',
      Body: '{}',
      MessageAttributes: { traceparent: { DataType: 'String', StringValue: '00-x' } },
    },
  ],
  QUEUE,
  'us-east-1',
).Records;
const ids = (records: ReturnType<typeof messagesToDelete>) => records.map((record) => record.messageId);

describe("the lane's SQS poller, as Lambda's", () => {
  it('hands the function the records Lambda builds: attributes, camelCase message attributes, the queue ARN', () => {
    // Assert
    expect(batch[0]).toMatchObject({
      messageId: 'a',
      receiptHandle: 'ra',
      eventSource: 'aws:sqs',
      eventSourceARN: QUEUE,
    });
    expect(batch[0]?.attributes).toEqual({ ApproximateReceiveCount: '1' });
    expect(batch[1]?.messageAttributes).toEqual({
      traceparent: { dataType: 'String', stringValue: '00-x', stringListValues: [], binaryListValues: [] },
    });
  });

  it('deletes all but the reported failures with ReportBatchItemFailures, and none on a function error', () => {
    // Act
    const partial = messagesToDelete(
      batch,
      { functionError: false, response: { batchItemFailures: [{ itemIdentifier: 'b' }] } },
      { reportBatchItemFailures: true },
    );
    const empty = messagesToDelete(
      batch,
      { functionError: false, response: { batchItemFailures: [] } },
      { reportBatchItemFailures: true },
    );
    const errored = messagesToDelete(batch, { functionError: true }, { reportBatchItemFailures: true });

    // Assert
    expect(ids(partial)).toEqual(['a']);
    expect(ids(empty)).toEqual(['a', 'b']);
    expect(ids(errored)).toEqual([]);
  });

  it('fails the whole batch on a response naming an id not in it or malformed; without the setting deletes all', () => {
    // Act
    const unknown = messagesToDelete(
      batch,
      { functionError: false, response: { batchItemFailures: [{ itemIdentifier: 'z' }] } },
      { reportBatchItemFailures: true },
    );
    const malformed = messagesToDelete(
      batch,
      { functionError: false, response: { batchItemFailures: 'b' } },
      { reportBatchItemFailures: true },
    );
    const plain = messagesToDelete(
      batch,
      { functionError: false, response: { batchItemFailures: [{ itemIdentifier: 'b' }] } },
      { reportBatchItemFailures: false },
    );

    // Assert
    expect(ids(unknown)).toEqual([]);
    expect(ids(malformed)).toEqual([]);
    expect(ids(plain)).toEqual(['a', 'b']);
  });

  it('runs the schedule at its rate and refuses an expression it cannot follow', () => {
    // Assert
    expect(rateIntervalMs('rate(1 minute)')).toBe(60_000);
    expect(rateIntervalMs('rate(5 minutes)')).toBe(300_000);
    expect(() => rateIntervalMs('cron(0 2 * * ? *)')).toThrow('only rate(...)');
  });
});
