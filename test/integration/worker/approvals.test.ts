import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { TEST_CALLER_ARN } from '../../support/function-url-event.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const runs: string[] = [];
const HOUR = 3_600_000;
const refund = defineJob({
  type: 'refund',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number() }),
  approval: { when: (payload) => payload.amount > 1000, expiresAfterMs: HOUR },
  run: async (ctx) => {
    runs.push(ctx.identity.operationId);
    return { outcomeCode: 'refunded' };
  },
});
const wire = defineJob({
  type: 'wire',
  version: 1,
  target: 'B',
  payload: z.strictObject({ to: z.string() }),
  approval: { required: true, approvers: 'not-producer', expiresAfterMs: HOUR },
  run: async (ctx) => {
    runs.push(ctx.identity.operationId);
    return { outcomeCode: 'wired' };
  },
});

/** A caller as the Function URL authenticates it: a role session of `roleId`. */
function caller(roleId: string, session: string) {
  return { accountId: '123456789012', userId: `${roleId}:${session}`, accessKeyId: 'ASIAEXAMPLEEXAMPLE01' };
}

describe('approvals: a gated job waits awaiting_approval before any attempt, and runs only once approved', () => {
  let harness: WorkerHarness;
  let deps: AdminDeps;
  const admin = (path: string, body: unknown, who?: ReturnType<typeof caller>) =>
    handleAdminRequest(
      { method: 'POST', path, body: JSON.stringify(body), actor: TEST_CALLER_ARN, ...(who ? { caller: who } : {}) },
      deps,
    );
  beforeAll(async () => {
    harness = await createWorkerHarness('approvals', [refund, wire]);
    deps = {
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloadsTable: harness.tables.payloadsTable,
    };
  });
  afterAll(async () => {
    await harness.close();
  });

  it('below the predicate a job runs at once; above it the row waits with no lease, and many deliveries run nothing', async () => {
    // Prepare
    const small = parseIdentity({ tenantId: 'acme', operationId: 'refund-small' });
    const large = parseIdentity({ tenantId: 'acme', operationId: 'refund-large' });
    await harness.send({ ...small, jobType: 'refund', payload: { amount: 10 } });
    for (let copy = 0; copy < 5; copy += 1)
      await harness.send({ ...large, jobType: 'refund', payload: { amount: 5000 } });
    const worker = harness.worker();

    // Act
    const polled = await harness.poll(worker);

    // Assert: every message acknowledged, none redelivered or dead-lettered; the large refund never ran.
    expect(polled).toEqual({ received: 6, failed: 0, deleted: 6 });
    expect(runs).toEqual(['refund-small']);
    const row = await harness.store.get(large);
    expect(row).toMatchObject({
      state: 'awaiting_approval',
      attempts: 0,
      approvalExpiresAt: harness.clock.now() + HOUR,
    });
    expect(row?.leaseOwner).toBeUndefined();
    expect(row?.effectMayHaveHappened).toBeUndefined();
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    expect(await harness.queueDepth(harness.dlqUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('counted and listed with the parked states, oldest first, with its parked time', async () => {
    const counts = await handleAdminRequest({ method: 'GET', path: '/counts', actor: TEST_CALLER_ARN }, deps);
    const states = (counts.body.states as Array<{ state: string; count?: number }>).map((entry) => [
      entry.state,
      entry.count,
    ]);
    expect(states).toContainEqual(['awaiting_approval', 1]);
    const listed = await handleAdminRequest(
      { method: 'GET', path: '/items', query: { state: 'awaiting_approval' }, actor: TEST_CALLER_ARN },
      deps,
    );
    expect((listed.body.items as Array<{ operationId: string }>).map((item) => item.operationId)).toEqual([
      'refund-large',
    ]);
  });

  it('an approval for another payload hash is refused (409) and changes nothing; the right hash queues and wakes it', async () => {
    // Prepare
    const large = parseIdentity({ tenantId: 'acme', operationId: 'refund-large' });
    const before = await harness.store.get(large);
    const path = '/items/acme/refund-large/approve';

    // Act: the approver saw a different payload.
    const refused = await admin(path, { reason: 'checked the ticket', payloadHash: payloadHash({ amount: 50 }) });

    // Assert
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toMatchObject({ error: 'approval_refused', refusal: 'payload_hash_mismatch' });
    expect(await harness.store.get(large)).toEqual(before);

    // Act: the payload the approver saw is the row's.
    const approved = await admin(path, { reason: 'checked the ticket', payloadHash: payloadHash({ amount: 5000 }) });

    // Assert: queued, audited with the caller, woken; the next poll runs it exactly once.
    expect(approved.statusCode).toBe(200);
    expect(approved.body).toMatchObject({ wake: 'sent', item: { state: 'queued' } });
    const audited = (await harness.store.get(large))?.audit?.at(-1);
    expect(audited).toMatchObject({
      action: 'approve',
      from: 'awaiting_approval',
      to: 'queued',
      actor: TEST_CALLER_ARN,
    });
    expect(await harness.poll(harness.worker())).toEqual({ received: 1, failed: 0, deleted: 1 });
    expect(runs).toEqual(['refund-small', 'refund-large']);
    expect(await harness.store.get(large)).toMatchObject({ state: 'succeeded', fence: (before?.fence ?? 0) + 1 });

    // A second approval finds nothing awaiting.
    const again = await admin(path, { reason: 'twice', payloadHash: payloadHash({ amount: 5000 }) });
    expect(again.body).toMatchObject({ error: 'approval_refused', refusal: 'not_awaiting_approval' });
  });

  it('not-producer: the producing principal (any session) is refused, an unauthenticated approver too, another role is not', async () => {
    // Prepare: the SQS engine stamps the sender; the row records its principal.
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wire-1' });
    await harness.send({ ...identity, jobType: 'wire', payload: { to: 'DE00' } });
    await harness.poll(harness.worker());
    const row = await harness.store.get(identity);
    expect(row).toMatchObject({ state: 'awaiting_approval', approvers: 'not-producer' });
    const producer = row?.producerId as string;
    expect(producer).toEqual(expect.any(String));
    const body = { reason: 'four eyes', payloadHash: payloadHash({ to: 'DE00' }) };
    const path = '/items/acme/wire-1/approve';

    // Act + Assert
    const self = await admin(path, body, caller(producer, 'another-session'));
    expect(self.body).toMatchObject({ error: 'approval_refused', refusal: 'approver_is_producer' });
    const anonymous = await admin(path, body);
    expect(anonymous.body).toMatchObject({ error: 'approval_refused', refusal: 'approver_is_producer' });
    expect(await harness.store.get(identity)).toEqual(row);
    const other = await admin(path, body, caller('AROAOTHERROLE0000000', 'bob'));
    expect(other.statusCode).toBe(200);
    expect((await harness.store.get(identity))?.audit?.at(-1)?.caller?.userId).toBe('AROAOTHERROLE0000000:bob');
  });

  it('reject cancels it without running (fence + 1, audited); the sweeper cancels one left past its expiry', async () => {
    // Prepare
    const rejected = parseIdentity({ tenantId: 'acme', operationId: 'refund-rejected' });
    const expired = parseIdentity({ tenantId: 'acme', operationId: 'refund-expired' });
    await harness.send({ ...rejected, jobType: 'refund', payload: { amount: 2000 } });
    await harness.send({ ...expired, jobType: 'refund', payload: { amount: 3000 } });
    await harness.poll(harness.worker());
    const fence = (await harness.store.get(rejected))?.fence ?? -1;

    // Act
    const answer = await admin('/items/acme/refund-rejected/reject', { reason: 'not authorised' });
    const early = await sweep({ store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl });
    harness.clock.advance(HOUR + 1);
    const late = await sweep({ store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl });

    // Assert
    expect(answer.statusCode).toBe(200);
    expect(await harness.store.get(rejected)).toMatchObject({
      state: 'cancelled',
      errorCode: 'approval_rejected',
      fence: fence + 1,
      audit: [expect.objectContaining({ action: 'reject', reason: 'not authorised' })],
    });
    expect(early.approvalsExpired).toBe(0);
    expect(early.oldestAwaitingApprovalAgeSeconds).toBe(0);
    expect(late.approvalsExpired).toBe(1);
    const gone = await harness.store.get(expired);
    expect(gone).toMatchObject({ state: 'cancelled', errorCode: 'approval_expired' });
    expect(gone?.parkedState).toBeUndefined();
    expect(gone?.deadlineAt).toBeUndefined();
    expect(runs).not.toContain('refund-rejected');
    expect(runs).not.toContain('refund-expired');
    expect(await harness.poll(harness.worker())).toEqual({ received: 0, failed: 0, deleted: 0 });
  });
  it('a row of a gated type written without its definition (no gate) is claimed but quarantined approval_missing, never run', async () => {
    // Prepare: a confirm-first send whose registry has the type's budget only, as a schedule tick without the
    // job definitions has: the row is written queued, not awaiting_approval.
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'wire-unguarded' });
    const budgetOnly = [{ type: 'wire', maxAttempts: 3 }];
    const producer = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloads: harness.payloads,
      delayed: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: budgetOnly, clock: harness.clock },
    };
    const sent = await sendJob(producer, { ...identity, jobType: 'wire', payload: { to: 'mallory' }, confirm: true });
    expect(sent.answer).toBe('new');
    expect((await harness.store.get(identity))?.state).toBe('queued');
    const before = [...runs];

    // Act
    const polled = await harness.poll(harness.worker());

    // Assert: acknowledged, quarantined under the claim's fence, the job body never called.
    expect(polled).toMatchObject({ failed: 0 });
    expect(runs).toEqual(before);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'quarantined', errorCode: 'approval_missing' });
  });
});
