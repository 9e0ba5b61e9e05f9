import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { main } from '../../../infra/cli/main.js';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { resolveItem } from '../../../lib/admin/resolve.js';
import { retryItem } from '../../../lib/admin/retry.js';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { AmbiguousOutcomeError, OperatorStatementRequiredError, StatementTooEarlyError } from '../../../lib/errors.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { sendWakeSignals } from '../../../lib/messaging/wake.js';
import { WorkState } from '../../../lib/states.js';
import { requeueTransition } from '../../../lib/store/operator/operator-transitions.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { harnessTargetFlags } from '../../support/cli-target.js';
import { putWorkItem } from '../../support/factories.js';
import { FakeGateway, FakeMailer, reconcileWithGateway } from '../../support/fake-external.js';
import { drainQueue } from '../../support/queue-reader.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';
import { captureIo } from '../../unit/cli/io.js';

const gateway = new FakeGateway();
const mailer = new FakeMailer();

/** Class C, one attempt: the charge lands, then the answer is lost ▶ unknown. */
const charge = defineJob({
  type: 'charge',
  version: 1,
  target: 'C',
  maxAttempts: 1,
  leaseMs: 5_000,
  payload: z.strictObject({ amount: z.number().positive(), loseAnswer: z.boolean() }),
  run: async (ctx) => {
    const created = await gateway.charge(ctx.idempotencyKey, ctx.payload.amount);
    if (ctx.payload.loseAnswer) throw new AmbiguousOutcomeError('gateway timed out after the charge');
    return { outcomeCode: 'charged', result: { chargeId: created.id } };
  },
  reconcile: reconcileWithGateway(gateway),
});

/** Class C whose provider keeps keys for one minute: a retry past that needs the effect-absent statement. */
const KEY_WINDOW_MS = 60_000;
const chargeKept = defineJob({
  ...charge,
  type: 'charge-kept',
  provider: { create: () => gateway, effects: ['charge'], keyRetentionMs: KEY_WINDOW_MS },
  run: charge.run,
  reconcile: reconcileWithGateway(gateway),
});

/** Class D: every call is an effect; a lost answer ▶ unknown. */
const notify = defineJob({
  type: 'notify',
  version: 1,
  target: 'D',
  leaseMs: 5_000,
  payload: z.strictObject({ to: z.string() }),
  run: async (ctx) => {
    await mailer.send(ctx.payload.to);
    if (mailer.sent.length === 1) throw new AmbiguousOutcomeError('mail server timed out after sending');
    return { outcomeCode: 'sent' };
  },
});

describe('operator retries never skip reconciliation (effect mark on the work row)', () => {
  let harness: WorkerHarness;
  let admin: AdminDeps;
  beforeAll(async () => {
    harness = await createWorkerHarness('opretry', [charge, chargeKept, notify]);
    // No bound on the holder's run here (0 ms: the statement lands once the clock reaches the claim): these tests
    // are about the effect mark; the bound has its own test below.
    admin = {
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloadsTable: 'unused',
      workerMaxRunMs: 0,
    };
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Sends a job and runs one worker round: the first attempt's answer is lost, so the item parks unknown. */
  async function parkedUnknown(operationId: string, jobType: string, payload: unknown) {
    await harness.send({ tenantId: 'shop', operationId, jobType, payload });
    await harness.poll(harness.worker());
    const item = await harness.store.get(parseIdentity({ tenantId: 'shop', operationId }));
    expect(item).toMatchObject({ state: 'unknown', errorCode: 'ambiguous_outcome', effectMayHaveHappened: true });
    return item;
  }

  it.each([
    ['retry', (id: { tenantId: string; operationId: string }) => retryItem(admin, id, { actor: 'ops', reason: 'x' })],
    [
      'resolve ▶ queued',
      (id: { tenantId: string; operationId: string }) =>
        resolveItem(admin, id, { to: 'queued', actor: 'ops', reason: 'x' }),
    ],
  ])(
    'class C: %s resets attempts, yet the next claim looks the charge up instead of charging again',
    async (how, act) => {
      const operationId = `charge-${how.startsWith('retry') ? 'retry' : 'resolve'}`;
      const before = { charges: gateway.chargeCalls, lookups: gateway.lookupCalls };
      await parkedUnknown(operationId, 'charge', { amount: 5, loseAnswer: true });
      expect(gateway.chargeCalls).toBe(before.charges + 1);

      const requeued = await act({ tenantId: 'shop', operationId });
      expect(requeued.item).toMatchObject({
        state: 'queued',
        attempts: 0,
        effectMayHaveHappened: true,
        targetClass: 'C',
      });
      await harness.poll(harness.worker());

      expect(gateway.chargeCalls).toBe(before.charges + 1);
      expect(gateway.lookupCalls).toBe(before.lookups + 1);
      expect(await harness.store.get(parseIdentity({ tenantId: 'shop', operationId }))).toMatchObject({
        state: 'succeeded',
        attempts: 1,
        outcomeCode: 'charged',
      });
    },
  );

  it('class D: a retry without the statement is refused and changes nothing (library and admin API)', async () => {
    const identity = parseIdentity({ tenantId: 'shop', operationId: 'mail-refused' });
    mailer.sent.length = 0;
    const parked = await parkedUnknown(identity.operationId, 'notify', { to: 'ada@example.com' });
    expect(parked).toMatchObject({ targetClass: 'D' });

    await expect(retryItem(admin, identity, { actor: 'ops', reason: 'try again' })).rejects.toBeInstanceOf(
      OperatorStatementRequiredError,
    );
    await expect(
      resolveItem(admin, identity, { to: 'queued', actor: 'ops', reason: 'try again' }),
    ).rejects.toBeInstanceOf(OperatorStatementRequiredError);
    const viaApi = await handleAdminRequest(
      {
        method: 'POST',
        path: '/items/shop/mail-refused/retry',
        body: JSON.stringify({ reason: 'try again' }),
        actor: 'arn:aws:iam::1:user/ops',
      },
      admin,
    );
    expect(viaApi.statusCode).toBe(409);
    expect(viaApi.body).toMatchObject({ error: 'statement_required', statement: 'effect_did_not_happen' });
    expect(await harness.store.get(identity)).toEqual(parked);
    expect(mailer.sent).toEqual(['ada@example.com']);
  });

  it('class D: with the statement the retry is audited, clears the mark, and the job runs once more', async () => {
    const identity = parseIdentity({ tenantId: 'shop', operationId: 'mail-stated' });
    mailer.sent.length = 0;
    await parkedUnknown(identity.operationId, 'notify', { to: 'bob@example.com' });

    const viaApi = await handleAdminRequest(
      {
        method: 'POST',
        path: '/items/shop/mail-stated/retry',
        body: JSON.stringify({ reason: 'mail log shows no delivery', effectDidNotHappen: true }),
        actor: 'arn:aws:iam::1:user/ops',
      },
      admin,
    );
    expect(viaApi.statusCode).toBe(200);
    const requeued = await harness.store.get(identity);
    expect(requeued?.effectMayHaveHappened).toBeUndefined();
    expect(requeued?.audit?.at(-1)).toMatchObject({
      action: 'retry',
      statement: 'effect_did_not_happen',
      reason: 'mail log shows no delivery',
    });
    await harness.poll(harness.worker());

    expect(mailer.sent).toEqual(['bob@example.com', 'bob@example.com']);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', effectMayHaveHappened: true });
  });

  it('class D: the CLI refuses `retry` and `resolve --to queued` without --effect-did-not-happen, accepts it with', async () => {
    const identity = parseIdentity({ tenantId: 'shop', operationId: 'mail-cli' });
    mailer.sent.length = 0;
    await parkedUnknown(identity.operationId, 'notify', { to: 'cli@example.com' });
    const target = [...harnessTargetFlags(harness), '--actor', 'alice', '--worker-max-run-ms', '0'];
    const refused = captureIo();
    const resolveRefused = captureIo();
    const accepted = captureIo();

    expect(await main(['retry', 'shop/mail-cli', '--reason', 'again', ...target], refused)).toBe(1);
    expect(
      await main(['resolve', 'shop/mail-cli', '--to', 'queued', '--reason', 'again', ...target], resolveRefused),
    ).toBe(1);
    expect(refused.stderr()).toContain('--effect-did-not-happen');
    expect(resolveRefused.stderr()).toContain('--effect-did-not-happen');
    expect(await harness.store.get(identity)).toMatchObject({ state: 'unknown' });
    const resolved = ['resolve', 'shop/mail-cli', '--to', 'queued', '--reason', 'no delivery in the log'];
    expect(await main([...resolved, '--effect-did-not-happen', ...target], accepted)).toBe(0);
    expect((await harness.store.get(identity))?.audit?.at(-1)).toMatchObject({
      action: 'resolve_queued',
      actor: 'alice',
      statement: 'effect_did_not_happen',
    });
  });

  it('class D: a requeue that bypassed the admin check is parked by the worker without running', async () => {
    const identity = parseIdentity({ tenantId: 'shop', operationId: 'mail-bypass' });
    mailer.sent.length = 0;
    await parkedUnknown(identity.operationId, 'notify', { to: 'eve@example.com' });
    const shard = harness.store.deadlines.shardOf(identity);
    const requeued = await harness.store.operate(identity, [WorkState.unknown], (item) =>
      requeueTransition(item, { actor: 'script', reason: 'raw store call' }, shard, harness.clock.now()),
    );
    await sendWakeSignals(harness.sqs, harness.queueUrl, [requeued]);

    await harness.poll(harness.worker());

    expect(mailer.sent).toEqual(['eve@example.com']);
    expect(await harness.store.get(identity)).toMatchObject({
      state: 'unknown',
      errorCode: 'effect_may_have_happened',
    });
  });

  it('class C past its key retention window: retry and resolve ▶ queued need the statement; within it they do not', async () => {
    const fresh = await parkedUnknown('kept-fresh', 'charge-kept', { amount: 3, loseAnswer: true });
    const stale = await parkedUnknown('kept-stale', 'charge-kept', { amount: 4, loseAnswer: true });
    expect(stale).toMatchObject({ targetClass: 'C', keyRetentionMs: KEY_WINDOW_MS });
    const within = await retryItem(
      admin,
      { tenantId: 'shop', operationId: 'kept-fresh' },
      { actor: 'ops', reason: 'x' },
    );
    harness.clock.advance(KEY_WINDOW_MS + 1);
    const staleId = { tenantId: 'shop', operationId: 'kept-stale' };

    const retried = await retryItem(admin, staleId, { actor: 'ops', reason: 'x' }).catch((error: unknown) => error);
    const resolved = await resolveItem(admin, staleId, { to: 'queued', actor: 'ops', reason: 'x' }).catch(
      (error: unknown) => error,
    );
    const unchanged = await harness.store.get(parseIdentity(staleId));
    const stated = await retryItem(admin, staleId, {
      actor: 'ops',
      reason: 'ledger shows none',
      effectDidNotHappen: true,
    });

    expect(fresh?.fence).toBe(1);
    expect(within.item).toMatchObject({ state: 'queued', effectMayHaveHappened: true });
    expect(retried).toBeInstanceOf(OperatorStatementRequiredError);
    expect((retried as Error).message).toContain('older than the provider keeps its keys');
    expect(resolved).toBeInstanceOf(OperatorStatementRequiredError);
    expect(unchanged).toMatchObject({ state: 'unknown', fence: stale?.fence });
    expect(stated.item).toMatchObject({ state: 'queued' });
    expect(stated.item.audit?.at(-1)).toMatchObject({ action: 'retry', statement: 'effect_did_not_happen' });
    await drainQueue(harness.sqs, harness.queueUrl);
  });

  it('class D: the statement right after the sweeper parked a stalled holder is refused until the worker timeout has passed since its claim', async () => {
    const maxRunMs = 120_000;
    const bounded: AdminDeps = { ...admin, workerMaxRunMs: maxRunMs };
    const identity = parseIdentity({ tenantId: 'shop', operationId: 'mail-stalled' });
    const stated = { actor: 'ops', reason: 'mail log shows no delivery', effectDidNotHappen: true };
    await putWorkItem(harness.client, harness.tables.jobsTable, {
      identity,
      state: 'queued',
      now: harness.clock.now(),
      overrides: { jobType: 'notify', maxAttempts: 1 },
    });
    // A holder claims, stalls past its lease (its invocation still running), and the sweeper parks the job.
    const claimedAt = harness.clock.now();
    const stalled = await harness.store.claim(
      identity,
      parseLease({ owner: 'stalled', leaseMs: 5_000, targetClass: 'D' }),
    );
    harness.clock.advance(5_001);
    await sweep({ store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl });
    const parked = await harness.store.get(identity);

    const early = await retryItem(bounded, identity, stated).catch((error: unknown) => error);
    const viaApi = await handleAdminRequest(
      {
        method: 'POST',
        path: '/items/shop/mail-stalled/resolve',
        body: JSON.stringify({ to: 'queued', reason: stated.reason, effectDidNotHappen: true }),
        actor: 'arn:aws:iam::1:user/ops',
      },
      bounded,
    );
    const unchanged = await harness.store.get(identity);
    const refusals = (await harness.store.audit.page(25)).items.filter((record) =>
      String(record.action).endsWith('_refused'),
    );
    harness.clock.advance(claimedAt + maxRunMs - 1 - harness.clock.now());
    const stillEarly = await retryItem(bounded, identity, stated).catch((error: unknown) => error);
    harness.clock.advance(1);
    const accepted = await retryItem(bounded, identity, stated);

    expect(stalled.claimed).toBe(true);
    expect(parked).toMatchObject({ state: 'unknown', errorCode: 'lease_expired_attempts_exhausted', claimedAt });
    expect(early).toBeInstanceOf(StatementTooEarlyError);
    expect((early as StatementTooEarlyError).acceptedFrom).toBe(claimedAt + maxRunMs);
    expect(viaApi.statusCode).toBe(409);
    expect(viaApi.body).toMatchObject({
      error: 'statement_too_early',
      acceptedFrom: new Date(claimedAt + maxRunMs).toISOString(),
    });
    expect(unchanged).toEqual(parked);
    expect(refusals.map((record) => record.action).sort()).toEqual(['resolve_queued_refused', 'retry_refused']);
    expect(stillEarly).toBeInstanceOf(StatementTooEarlyError);
    expect(accepted.item).toMatchObject({ state: 'queued', fence: (parked?.fence ?? 0) + 1 });
    expect(accepted.item.effectMayHaveHappened).toBeUndefined();
    await drainQueue(harness.sqs, harness.queueUrl);
  });

  it('class D: the CLI refuses the statement while a holder may still run and shows from when it is accepted', async () => {
    const identity = parseIdentity({ tenantId: 'shop', operationId: 'mail-cli-early' });
    mailer.sent.length = 0;
    const parked = await parkedUnknown(identity.operationId, 'notify', { to: 'early@example.com' });
    const target = harnessTargetFlags(harness);
    const refused = captureIo();

    const code = await main(
      ['retry', 'shop/mail-cli-early', '--reason', 'no delivery', '--effect-did-not-happen', ...target],
      refused,
    );

    // No --worker-max-run-ms: the default bound, 15 minutes after the claim (Lambda's ceiling).
    expect(code).toBe(1);
    expect(refused.stderr()).toContain(new Date((parked?.claimedAt ?? 0) + 900_000).toISOString());
    expect(await harness.store.get(identity)).toEqual(parked);
  });
});
