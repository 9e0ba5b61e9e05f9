import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { tenantConditions } from '../../../infra/construct/tenant-access.js';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { canonicalJson, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity, type ValidIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { ORIGINAL_SENDER_ATTRIBUTE, type SenderTenants } from '../../../lib/messaging/sender-tenants.js';
import { approvalRecordKey, payloadKey, TTL_ATTRIBUTE, workItemKey } from '../../../lib/store/table.js';
import { conditionMatches } from '../../infra/support/iam-conditions.js';
import { TEST_CALLER_ARN } from '../../support/function-url-event.js';
import { deliverAs } from '../../support/sender-delivery.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/*
 * Issue #39 findings 2, 3, 4 and 5, run on the engines through the real SQS handler and admin router. The producer
 * attacks with exactly what its synthesized grants allow (grantSendJobs + grantTenantScopedAccess for acme): every
 * DynamoDB request it makes here is checked against the LeadingKeys condition the construct writes for it
 * (tenantConditions, pinned in test/infra/approval-grants.test.ts) before it is sent.
 */

const ACME_PRODUCER = 'AROAACMEPRODUCER0000';
const APPROVER = 'AROAAPPROVERROLE0000';
const ADMIN = 'AROAADMINROLE0000000';
const SWEEPER = 'AROASWEEPERROLE00000';
const POLICY: SenderTenants = [
  { sender: ACME_PRODUCER, tenants: ['acme'] },
  { sender: ADMIN, relay: true },
  { sender: SWEEPER, relay: true },
];
const DAY = 24 * 3_600_000;
const HOUR = 3_600_000;

const runs: string[] = [];
const wire = defineJob({
  type: 'wire',
  version: 1,
  target: 'B',
  payload: z.strictObject({ to: z.string() }),
  approval: { required: true, approvers: 'not-producer', expiresAfterMs: 60 * DAY },
  run: async (ctx) => {
    runs.push(`${ctx.identity.operationId}:${ctx.payload.to}`);
    return { outcomeCode: 'wired' };
  },
});
const refund = defineJob({
  type: 'refund',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number() }),
  approval: { required: true, expiresAfterMs: HOUR },
  run: async (ctx) => {
    runs.push(ctx.identity.operationId);
    return { outcomeCode: 'refunded' };
  },
});

/** A caller as the Function URL authenticates it: a session of `roleId`. */
const caller = (roleId: string) => ({
  accountId: '123456789012',
  userId: `${roleId}:someone`,
  accessKeyId: 'ASIAEXAMPLEEXAMPLE01',
});

/** The admin API's approve, as a session of `who` calls it through the Function URL. */
const approveAs = (deps: AdminDeps, identity: ValidIdentity, hash: string, who: string) =>
  handleAdminRequest(
    {
      method: 'POST',
      path: `/items/${identity.tenantId}/${identity.operationId}/approve`,
      body: JSON.stringify({ reason: 'checked', payloadHash: hash }),
      actor: TEST_CALLER_ARN,
      caller: caller(who),
    },
    deps,
  );

describe('an approval binds: nothing a producer writes with its grants runs a gated job', () => {
  let harness: WorkerHarness;
  let deps: AdminDeps;
  let handler: ReturnType<WorkerHarness['worker']>;

  /** The producer's own DynamoDB request, refused here unless acme's synthesized LeadingKeys condition admits it. */
  function asProducer(pk: string): void {
    const admitted = conditionMatches(tenantConditions({ tenantId: 'acme' }), { leadingKeys: [pk] });
    if (!admitted) throw new Error(`acme's producer grants do not reach ${pk}`);
  }
  async function producerGet(key: { pk: string; sk: string }, table: string) {
    asProducer(key.pk);
    return (await harness.client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
  }
  async function producerPut(item: Record<string, unknown>, table: string) {
    asProducer(String(item.pk));
    await harness.client.send(new PutCommand({ TableName: table, Item: item }));
  }

  /** Delivers what is queued as sent by a session of `senderId` (deliverAs). */
  const deliver = (senderId: string) => deliverAs(harness, handler, `${senderId}:session`);

  /** A message as a producer with SendMessage may send it (`attributes`: what a relay adds). */
  const sendEnvelope = (
    identity: ValidIdentity,
    jobType: string,
    hash: string,
    kind: 'job' | 'wake',
    attributes: Record<string, string> = {},
  ) =>
    harness.sqs.send(
      new SendMessageCommand({
        QueueUrl: harness.queueUrl,
        MessageBody: serializeEnvelope({
          v: 1,
          kind,
          ...identity,
          jobType,
          payloadHash: hash,
          payload: { inline: true },
        }),
        MessageAttributes: Object.fromEntries(
          Object.entries(attributes).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
        ),
      }),
    );

  const approve = (identity: ValidIdentity, hash: string, who: string) => approveAs(deps, identity, hash, who);

  /** The row rewritten by its producer as if approved: queued, due now, with an approval time, no gate. */
  async function rewriteAsApproved(identity: ValidIdentity, changes: Record<string, unknown> = {}) {
    const row = (await producerGet(workItemKey(identity), harness.tables.jobsTable)) as Record<string, unknown>;
    const { approvalExpiresAt: _a, approvers: _b, parkedState: _c, parkedTenantState: _d, parkedAt: _e, ...rest } = row;
    const now = harness.clock.now();
    await producerPut(
      { ...rest, state: 'queued', approvedAt: now, availableAt: now, deadlineAt: now, updatedAt: now, ...changes },
      harness.tables.jobsTable,
    );
  }

  /** A gated job sent by acme's producer (body stored under acme's key, message stamped with its SenderId). */
  async function produce(operationId: string, payload: unknown, jobType = 'wire') {
    const identity = parseIdentity({ tenantId: 'acme', operationId });
    asProducer(payloadKey(identity).pk);
    await harness.payloads.put(identity, payload, payloadHash(payload));
    await sendEnvelope(identity, jobType, payloadHash(payload), 'job');
    await deliver(ACME_PRODUCER);
    return identity;
  }

  beforeAll(async () => {
    harness = await createWorkerHarness('approval-binding', [wire, refund]);
    deps = {
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloadsTable: harness.tables.payloadsTable,
    };
    handler = harness.worker({ senderTenants: POLICY });
  });
  afterAll(() => harness.close());

  it('a producer that rewrites its awaiting row as approved and queued, then wakes it, runs nothing: quarantined approval_missing', async () => {
    // Prepare
    const identity = await produce('wire-rewritten', { to: 'mallory' });
    expect((await harness.store.get(identity))?.state).toBe('awaiting_approval');

    // Act: the producer's own GetItem and PutItem on its own row, then its own wake-up.
    await rewriteAsApproved(identity);
    await sendEnvelope(identity, 'wire', payloadHash({ to: 'mallory' }), 'wake');
    await deliver(ACME_PRODUCER);

    // Assert
    expect(runs).not.toContain('wire-rewritten:mallory');
    expect(await harness.store.get(identity)).toMatchObject({ state: 'quarantined', errorCode: 'approval_missing' });
  });

  it('a row the producer writes first as queued and approved (never awaiting) runs nothing either', async () => {
    // Prepare: the body stored, then the row put straight away, before any message.
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wire-forged-row' });
    const body = { to: 'mallory' };
    asProducer(payloadKey(identity).pk);
    await harness.payloads.put(identity, body, payloadHash(body));
    const now = harness.clock.now();
    await producerPut(
      {
        ...workItemKey(identity),
        kind: 'work',
        ...identity,
        jobType: 'wire',
        payloadHash: payloadHash(body),
        payloadInline: true,
        state: 'queued',
        fence: 0,
        attempts: 0,
        maxAttempts: 3,
        availableAt: now,
        createdAt: now,
        updatedAt: now,
        approvedAt: now,
      },
      harness.tables.jobsTable,
    );

    // Act
    await sendEnvelope(identity, 'wire', payloadHash(body), 'wake');
    await deliver(ACME_PRODUCER);

    // Assert
    expect(runs).not.toContain('wire-forged-row:mallory');
    expect(await harness.store.get(identity)).toMatchObject({ state: 'quarantined', errorCode: 'approval_missing' });
  });

  it('an approval never covers another payload: the producer swaps body and row hash after the approval, and nothing runs', async () => {
    // Prepare: approved for the body the approver saw.
    const identity = await produce('wire-swapped', { to: 'alice' });
    expect((await approve(identity, payloadHash({ to: 'alice' }), APPROVER)).statusCode).toBe(200);

    // Act: the producer's unconditional PutItems on its own payload and row, before the wake-up is delivered.
    const swapped = { to: 'mallory' };
    await producerPut(
      { ...payloadKey(identity), body: canonicalJson(swapped), payloadHash: payloadHash(swapped) },
      harness.tables.payloadsTable,
    );
    await rewriteAsApproved(identity, { payloadHash: payloadHash(swapped) });
    await deliver(ACME_PRODUCER);

    // Assert
    expect(runs.filter((run) => run.startsWith('wire-swapped'))).toEqual([]);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'quarantined', errorCode: 'approval_missing' });
  });

  it('not-producer: a producer that writes another producerId into its row is still refused as approver; another principal is not', async () => {
    // Prepare
    const identity = await produce('wire-own-approval', { to: 'bob' });
    const row = (await producerGet(workItemKey(identity), harness.tables.jobsTable)) as Record<string, unknown>;
    await producerPut({ ...row, producerId: 'AROASOMEONEELSE00000' }, harness.tables.jobsTable);

    // Act
    const own = await approve(identity, payloadHash({ to: 'bob' }), ACME_PRODUCER);

    // Assert: refused, nothing changed; the approver the rule allows is accepted and the job runs once.
    expect(own.statusCode).toBe(409);
    expect(own.body).toMatchObject({ error: 'approval_refused', refusal: 'approver_is_producer' });
    expect((await harness.store.get(identity))?.state).toBe('awaiting_approval');
    expect((await approve(identity, payloadHash({ to: 'bob' }), APPROVER)).statusCode).toBe(200);
    await deliver(SWEEPER);
    expect(runs.filter((run) => run.startsWith('wire-own-approval'))).toEqual(['wire-own-approval:bob']);
  });

  it("a gated job whose first message came through the admin's DLQ redrive records its original sender, not the admin", async () => {
    // Prepare: the message as the redrive sends it (SenderId the admin's, the original sender in its attribute).
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wire-redriven' });
    const body = { to: 'carol' };
    await harness.payloads.put(identity, body, payloadHash(body));
    await sendEnvelope(identity, 'wire', payloadHash(body), 'job', {
      [ORIGINAL_SENDER_ATTRIBUTE]: `${ACME_PRODUCER}:api`,
    });
    await deliver(ADMIN);
    expect((await harness.store.get(identity))?.state).toBe('awaiting_approval');

    // Act
    const byProducer = await approve(identity, payloadHash(body), ACME_PRODUCER);
    const byAdmin = await approve(identity, payloadHash(body), ADMIN);

    // Assert: the real producer is refused; the relay is not the producer, so it may approve.
    expect(byProducer.body).toMatchObject({ error: 'approval_refused', refusal: 'approver_is_producer' });
    expect(byAdmin.statusCode).toBe(200);
    await deliver(SWEEPER);
    expect(runs).toContain('wire-redriven:carol');
  });
});

describe('approvals and retention agree', () => {
  let harness: WorkerHarness;
  let deps: AdminDeps;

  /** DynamoDB's TTL as the engines lack it: every payload body past its expiry is deleted. */
  async function expireBodies(): Promise<number> {
    const table = harness.tables.payloadsTable;
    const items = (await harness.client.send(new ScanCommand({ TableName: table }))).Items ?? [];
    const expired = items.filter((item) => Number(item[TTL_ATTRIBUTE]) * 1000 < harness.clock.now());
    for (const item of expired) {
      await harness.client.send(new DeleteCommand({ TableName: table, Key: { pk: item.pk, sk: item.sk } }));
    }
    return expired.length;
  }

  const approve = (identity: ValidIdentity, hash: string) => approveAs(deps, identity, hash, APPROVER);

  beforeAll(async () => {
    harness = await createWorkerHarness('approval-retention', [wire, refund]);
    deps = {
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloadsTable: harness.tables.payloadsTable,
    };
  });
  afterAll(() => harness.close());

  it('a 60-day window approved on day 45 (bodies kept 30 days) still runs its body', async () => {
    // Prepare: the producer's body, kept the default 30 days from its send.
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wire-day-45' });
    const body = { to: 'dave' };
    await sendJob(
      { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads },
      { ...identity, jobType: 'wire', payload: body },
    );
    await harness.poll(harness.worker());
    expect((await harness.store.get(identity))?.state).toBe('awaiting_approval');

    // Act
    harness.clock.advance(45 * DAY);
    const expired = await expireBodies();
    const answer = await approve(identity, payloadHash(body));
    await harness.poll(harness.worker());

    // Assert: nothing of this job expired; it ran with its body.
    expect(expired).toBe(0);
    expect(answer.statusCode).toBe(200);
    expect(runs).toContain('wire-day-45:dave');
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded' });
  });

  it('the approval record expires (TTL) a retention period after its window, never before the body kept for it', async () => {
    // Prepare: a gated job's first message opens its record (and keeps its body to the window's end + retention).
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wire-record-ttl' });
    await sendJob(
      { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads },
      { ...identity, jobType: 'wire', payload: { to: 'erin' } },
    );
    await harness.poll(harness.worker());

    // Act: the record and the body as stored
    const record = (
      await harness.client.send(
        new GetCommand({ TableName: harness.tables.jobsTable, Key: approvalRecordKey(identity) }),
      )
    ).Item;
    const body = (
      await harness.client.send(new GetCommand({ TableName: harness.tables.payloadsTable, Key: payloadKey(identity) }))
    ).Item;

    // Assert: the table's TTL attribute, at the window's end + the payload retention, not before the body's
    expect(record?.decision).toBeUndefined();
    expect(record?.[TTL_ATTRIBUTE]).toBe(Math.floor((Number(record?.expiresAt) + harness.payloads.retentionMs) / 1000));
    expect(Number(record?.[TTL_ATTRIBUTE])).toBeGreaterThanOrEqual(Number(body?.[TTL_ATTRIBUTE]));
  });

  it('an approval an hour after the window closed is refused in the write itself, before the sweeper ran', async () => {
    // Prepare
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'refund-late' });
    const body = { amount: 10 };
    await sendJob(
      { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads },
      { ...identity, jobType: 'refund', payload: body },
    );
    await harness.poll(harness.worker());
    const before = await harness.store.get(identity);
    expect(before?.state).toBe('awaiting_approval');

    // Act
    harness.clock.advance(2 * HOUR);
    const answer = await approve(identity, payloadHash(body));

    // Assert: a typed refusal, nothing changed, nothing woken.
    expect(answer.statusCode).toBe(409);
    expect(answer.body).toMatchObject({ error: 'approval_refused', refusal: 'approval_expired' });
    expect(await harness.store.get(identity)).toEqual(before);
    expect(await harness.poll(harness.worker())).toMatchObject({ received: 0 });
    expect(runs).not.toContain('refund-late');
  });
});
