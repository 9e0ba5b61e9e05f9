import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { redriveDeadLetters } from '../../../lib/admin/redrive.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { ORIGINAL_SENDER_ATTRIBUTE, type SenderTenants } from '../../../lib/messaging/sender-tenants.js';
import { newWorkItem } from '../../../lib/store/work-items/schemas.js';
import { deliverAs } from '../../support/sender-delivery.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/** The SenderIds SQS would stamp: acme's producer role, globex's, and the sweeper and admin roles (relays). */
const ACME_PRODUCER = 'AROAACMEPRODUCER0000';
const GLOBEX_PRODUCER = 'AROAGLOBEXPRODUCER00';
const SWEEPER = 'AROASWEEPERROLE00000';
const ADMIN = 'AROAADMINROLE0000000';

const POLICY: SenderTenants = [
  { sender: ACME_PRODUCER, tenants: ['acme'] },
  { sender: GLOBEX_PRODUCER, tenants: ['globex'] },
  { sender: SWEEPER, relay: true },
  { sender: ADMIN, relay: true },
];

/** A worker handler of the harness (the real SQS handler, counting telemetry). */
type Handler = ReturnType<WorkerHarness['worker']>;

/** Every run, by identity: what "tenant A ran tenant B's job" would show. */
const runs: string[] = [];
const refund = defineJob({
  type: 'refund',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number() }),
  run: async (ctx) => {
    runs.push(`${ctx.identity.tenantId}/${ctx.identity.operationId}`);
    return { outcomeCode: 'refunded' };
  },
});

describe('a tenant that produces stays in its tenancy (SenderId checked by the real handler on the engines)', () => {
  let harness: WorkerHarness;
  let guarded: Handler;
  let unguarded: Handler;

  /** Receives what is on the queue, stamps each record with `senderId` as SQS would, runs the handler, acks. */
  const deliver = (handler: Handler, senderId: string | undefined) => deliverAs(harness, handler, senderId);

  /** A job message exactly as a producer (or an attacker with SendMessage) would send it. */
  const sendEnvelope = (tenantId: string, operationId: string, hash: string, kind: 'job' | 'wake' = 'job') =>
    harness.sqs.send(
      new SendMessageCommand({
        QueueUrl: harness.queueUrl,
        MessageBody: serializeEnvelope({
          v: 1,
          kind,
          tenantId,
          operationId,
          jobType: 'refund',
          payloadHash: hash,
          payload: { inline: true },
        }),
      }),
    );

  const quarantineRecords = async () =>
    ((await harness.client.send(new ScanCommand({ TableName: harness.tables.jobsTable }))).Items ?? []).filter(
      (row) => row.kind === 'quarantine',
    );

  beforeAll(async () => {
    harness = await createWorkerHarness('tenant-bound', [refund]);
    guarded = harness.worker({ senderTenants: POLICY });
    unguarded = harness.worker();
  });
  afterAll(() => harness.close());

  it("acme's producer cannot run globex's job, even with a payload stored under globex: quarantined, nothing of globex touched", async () => {
    // prepare: a body under globex's key (before this issue, acme's PutItem on the payloads table was unconditioned)
    const body = { amount: 500 };
    await harness.payloads.put({ tenantId: 'globex', operationId: 'refund-1' }, body, payloadHash(body));
    await sendEnvelope('globex', 'refund-1', payloadHash(body));
    const quarantinedBefore = (await quarantineRecords()).length;

    // act
    const { response, received } = await deliver(guarded, `${ACME_PRODUCER}:acme-api`);

    // assert
    expect(received).toBe(1);
    expect(response.batchItemFailures).toEqual([]);
    expect(runs).not.toContain('globex/refund-1');
    expect(await harness.store.get(parseIdentity({ tenantId: 'globex', operationId: 'refund-1' }))).toBeUndefined();
    const records = await quarantineRecords();
    expect(records).toHaveLength(quarantinedBefore + 1);
    const refused = records.find((record) => record.reason === 'tenant_not_allowed_for_sender');
    expect(refused).toMatchObject({
      detail: `sender ${ACME_PRODUCER}:acme-api may not produce for the tenant the message names`,
    });
    // Not listed as globex's: the sender's claim about the tenant is what was refused.
    expect(refused).not.toHaveProperty('tenantId');
    expect(guarded.telemetry.counts.Quarantined).toBeGreaterThanOrEqual(1);
  });

  it("a made-up hash for globex's future operation creates no row, so globex's real job still runs (with or without a sender policy)", async () => {
    // act 1: the forged first message, from acme under the policy and from anyone without one
    await sendEnvelope('globex', 'refund-2', payloadHash({ amount: 1 }));
    await deliver(guarded, `${ACME_PRODUCER}:acme-api`);
    await sendEnvelope('globex', 'refund-2', payloadHash({ amount: 1 }));
    const forged = await deliver(unguarded, `${ACME_PRODUCER}:acme-api`);
    const afterForgery = await harness.store.get(parseIdentity({ tenantId: 'globex', operationId: 'refund-2' }));

    // act 2: globex's own producer sends the real job
    await harness.send({ tenantId: 'globex', operationId: 'refund-2', jobType: 'refund', payload: { amount: 70 } });
    await deliver(guarded, `${GLOBEX_PRODUCER}:globex-api`);

    // assert
    expect(forged.response.batchItemFailures).toEqual([]);
    expect(afterForgery).toBeUndefined();
    const missing = (await quarantineRecords()).filter((record) => record.reason === 'payload_missing');
    expect(missing).toEqual([
      expect.objectContaining({ operationId: 'refund-2', detail: expect.stringContaining('no work row was created') }),
    ]);
    expect(await harness.store.get(parseIdentity({ tenantId: 'globex', operationId: 'refund-2' }))).toMatchObject({
      state: 'succeeded',
      payloadHash: payloadHash({ amount: 70 }),
    });
    expect(runs).toContain('globex/refund-2');
  });

  it("the sweeper's wake-ups pass for any tenant; a message without a SenderId does not", async () => {
    // prepare: a queued globex row whose wake-up was lost
    await harness.send({ tenantId: 'globex', operationId: 'refund-3', jobType: 'refund', payload: { amount: 3 } });
    await deliver(guarded, undefined);
    const unsent = await harness.store.get(parseIdentity({ tenantId: 'globex', operationId: 'refund-3' }));
    await harness.store.enqueue(
      newWorkItem(
        parseIdentity({ tenantId: 'globex', operationId: 'refund-4' }),
        { jobType: 'refund', payloadHash: payloadHash({ amount: 4 }), payload: { inline: true } },
        3,
      ),
    );
    await harness.payloads.put(
      { tenantId: 'globex', operationId: 'refund-4' },
      { amount: 4 },
      payloadHash({ amount: 4 }),
    );

    // act
    await sendEnvelope('globex', 'refund-4', payloadHash({ amount: 4 }), 'wake');
    await deliver(guarded, `${SWEEPER}:leasefence-sweeper`);

    // assert
    expect(unsent).toBeUndefined();
    expect(await harness.store.get(parseIdentity({ tenantId: 'globex', operationId: 'refund-4' }))).toMatchObject({
      state: 'succeeded',
    });
  });

  it('a message acme forged for globex that reached the DLQ is still refused after the admin redrives it', async () => {
    // prepare: the message sits in the DLQ (its original SenderId is what fauxqs stamps: no producer of this policy)
    const body = { amount: 9 };
    await harness.payloads.put({ tenantId: 'globex', operationId: 'refund-5' }, body, payloadHash(body));
    await harness.sqs.send(
      new SendMessageCommand({
        QueueUrl: harness.dlqUrl,
        MessageBody: serializeEnvelope({
          v: 1,
          kind: 'job',
          tenantId: 'globex',
          operationId: 'refund-5',
          jobType: 'refund',
          payloadHash: payloadHash(body),
          payload: { inline: true },
        }),
      }),
    );
    const admin: AdminDeps = {
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      deadLetterQueueUrl: harness.dlqUrl,
      payloadsTable: harness.tables.payloadsTable,
      dlqWaitTimeSeconds: 0,
    };

    // act: the admin moves it back (the jobs queue now sees the admin as its sender)
    const redriven = await redriveDeadLetters(admin, { actor: 'ops' });
    const received = await harness.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: harness.queueUrl, MessageAttributeNames: ['All'], VisibilityTimeout: 0 }),
    );
    const original = received.Messages?.[0]?.MessageAttributes?.[ORIGINAL_SENDER_ATTRIBUTE]?.StringValue;
    await deliver(guarded, `${ADMIN}:leasefence-admin`);

    // assert
    expect(redriven.moved).toBe(1);
    expect(original).toEqual(expect.any(String));
    expect(runs).not.toContain('globex/refund-5');
    expect(await harness.store.get(parseIdentity({ tenantId: 'globex', operationId: 'refund-5' }))).toBeUndefined();
  });
});
