import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { redriveDeadLetters } from '../../../lib/admin/redrive.js';
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

  it("a DLQ redrive sends each moved message with its tenant's group; a body naming no tenant keeps none", async () => {
    const job = {
      v: 1,
      kind: 'job',
      tenantId: 'initech',
      operationId: 'g-3',
      jobType: 'settle',
      payloadHash: payloadHash({ amount: 3 }),
      payload: { inline: true },
    };
    // Sent to the DLQ without a group, as a message moved there by SQS before the groups existed would be.
    await harness.sqs.send(new SendMessageCommand({ QueueUrl: harness.dlqUrl, MessageBody: JSON.stringify(job) }));
    await harness.sqs.send(new SendMessageCommand({ QueueUrl: harness.dlqUrl, MessageBody: 'not json' }));
    const admin: AdminDeps = {
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: observedQueueUrl,
      deadLetterQueueUrl: harness.dlqUrl,
      payloadsTable: harness.tables.payloadsTable,
      dlqWaitTimeSeconds: 0,
    };

    const redriven = await redriveDeadLetters(admin, { actor: 'ops' });
    const received = await harness.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: observedQueueUrl,
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );

    expect(redriven).toMatchObject({ received: 2, moved: 1, movedInvalid: 0 });
    expect(redriven.sendFailed).toBe(1); // a FIFO queue needs a group: only the valid message had one to send
    expect((received.Messages ?? []).map((message) => [message.Body, message.Attributes?.MessageGroupId])).toEqual([
      [JSON.stringify(job), messageGroupOf('initech')],
    ]);
  });
});
