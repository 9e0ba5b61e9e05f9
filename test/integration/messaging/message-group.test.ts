import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadHash } from '../../../lib/hashing.js';
import { messageGroupOf } from '../../../lib/messaging/message-group.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { sendWakeSignals } from '../../../lib/messaging/wake.js';
import { uniqueName } from '../../support/engine.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

describe('fair queues: every message of a tenant carries its message group', () => {
  let harness: WorkerHarness;
  let observedQueueUrl: string;

  beforeAll(async () => {
    harness = await createWorkerHarness('groups', []);
    // fauxqs keeps a message's group only on a FIFO queue; the messages are the same as on the standard jobs queue.
    const created = await harness.sqs.send(
      new CreateQueueCommand({
        QueueName: `${uniqueName('groups')}.fifo`,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
    observedQueueUrl = created.QueueUrl ?? '';
  });
  afterAll(async () => {
    await harness.close();
  });

  async function receivedGroups(): Promise<Record<string, string>> {
    const received = await harness.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: observedQueueUrl,
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    return Object.fromEntries(
      (received.Messages ?? []).map((message) => [
        `${JSON.parse(message.Body ?? '{}').kind}:${JSON.parse(message.Body ?? '{}').tenantId}`,
        message.Attributes?.MessageGroupId ?? 'none',
      ]),
    );
  }

  it("sendJob and the sweeper's wake-ups name the tenant's group, never the tenant id itself", async () => {
    await sendJob(
      { sqs: harness.sqs, queueUrl: observedQueueUrl, payloads: harness.payloads },
      { tenantId: 'acme', operationId: 'g-1', jobType: 'settle', payload: { amount: 1 } },
    );
    const woken = await sendWakeSignals(harness.sqs, observedQueueUrl, [
      {
        tenantId: 'globex',
        operationId: 'g-2',
        jobType: 'settle',
        payloadHash: payloadHash({ amount: 2 }),
        payloadInline: true,
      },
    ]);

    const groups = await receivedGroups();

    expect(woken).toMatchObject({ sent: 1, failed: 0 });
    expect(groups).toEqual({ 'job:acme': messageGroupOf('acme'), 'wake:globex': messageGroupOf('globex') });
    expect(messageGroupOf('acme')).not.toContain('acme');
    expect(messageGroupOf('acme')).not.toBe(messageGroupOf('globex'));
  });
});
