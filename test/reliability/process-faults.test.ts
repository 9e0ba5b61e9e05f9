import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryItem } from '../../lib/admin/retry.js';
import { payloadHash } from '../../lib/hashing.js';
import { parseIdentity, type ValidIdentity } from '../../lib/identity.js';
import { parseNewWorkItem } from '../../lib/store/work-items/schemas.js';
import { budget } from './support/chaos-mode.js';
import { createProcessFixture, type ProcessFixture } from './support/process-fixture.js';
import { ReliabilityJobType, recordKey } from './support/reliability-jobs.js';
import { ReliabilityReport } from './support/report.js';

/** Real-time lease of the worker processes: short, because every takeover waits for it to pass. */
const LEASE_MS = 2_000;

/**
 * Faults a unit test cannot fake: separate worker processes against one engine, frozen with SIGSTOP and
 * killed with SIGKILL at exact points of a job. Effects are counted in the shared ledger table.
 */
describe('worker processes frozen and killed mid-job', () => {
  const report = new ReliabilityReport(__filename);
  let fixture: ProcessFixture;

  beforeAll(async () => {
    fixture = await createProcessFixture('rel-proc', LEASE_MS);
  });
  afterAll(async () => {
    await report.publish();
    await fixture.close();
  });

  const newIdentity = (prefix: string): ValidIdentity =>
    parseIdentity({ tenantId: 'acme', operationId: `${prefix}-${randomUUID()}` });

  async function readRecord(identity: ValidIdentity): Promise<Record<string, unknown> | undefined> {
    const output = await fixture.client.send(
      new GetCommand({ TableName: fixture.ledgerTable.tableName, Key: recordKey(identity), ConsistentRead: true }),
    );
    return output.Item;
  }

  /**
   * The job's row as the engine committed it (worker processes, sweeper, admin), replayed through the model's step
   * relation: every step must be one the model can take.
   */
  const replayed = new Set<string>();
  function expectModelSteps(identity: ValidIdentity): void {
    if (replayed.has(identity.operationId)) return;
    replayed.add(identity.operationId);
    const replay = fixture.replay([identity]);
    report.addReplay(replay);
    expect(replay.illegal).toEqual([]);
    expect(replay.histories).toBe(1);
    expect(fixture.recorder.unrecorded).toEqual({}); // every write to the jobs table was seen
  }

  /** Counts what must stay 0: an item not in a final state, and effects beyond one per operation; replays the row (once). */
  async function tally(identity: ValidIdentity, finalStates: string[]): Promise<void> {
    expectModelSteps(identity);
    const item = await fixture.store.get(identity);
    if (!item || !finalStates.includes(item.state)) report.add('lostJobs');
    const charges = (await fixture.ledger.chargesByOperation(identity.tenantId)).get(identity.operationId) ?? [];
    const mails = (await fixture.ledger.mailsByOperation(identity.tenantId)).get(identity.operationId) ?? [];
    report.add('duplicateEffects', Math.max(0, charges.length - 1) + Math.max(0, mails.length - 1));
  }

  it(
    'SIGSTOP after the claim, past the lease: after SIGCONT the frozen worker is in lease doubt and sends no write',
    async () => {
      const [frozen, rival] = await fixture.pool.start(2);
      if (!frozen || !rival) throw new Error('workers did not start');
      const identity = newIdentity('stop');
      const payload = { amount: 5, workMs: 0, pauseAt: 'before-write', pauseAttempt: 1 } as const;
      const message = await fixture.jobMessage(identity, ReliabilityJobType.record, payload);
      const frozenOutcome = frozen.deliver(message);
      const stopped = await frozen.nextCheckpoint();
      frozen.pause();
      report.add('faultsInjected');
      frozen.continueFrom('before-write', identity.operationId);
      await fixture.waitForLeaseExpiry(identity);

      const rivalOutcome = await rival.deliver(message);
      frozen.resume();
      const staleOutcome = await frozenOutcome;

      expect(stopped).toMatchObject({ fence: 1, attempt: 1 });
      expect(rivalOutcome).toEqual({ ok: true, status: 'executed', state: 'succeeded', fence: 2 });
      // Its local lease deadline passed while it was frozen: the guard refuses the write before it is sent
      // (the fence would refuse it too; see the demo for a worker whose clock froze with it).
      expect(staleOutcome).toEqual({ ok: true, status: 'executed', state: 'lease_in_doubt', fence: 1 });
      expect(await readRecord(identity)).toMatchObject({ writtenBy: rival.workerId, writer_epoch: 2 });
      expect(await fixture.store.get(identity)).toMatchObject({
        state: 'succeeded',
        fence: 2,
        attempts: 2,
      });
      await tally(identity, ['succeeded']);
    },
    budget.testTimeoutMs,
  );

  it(
    'SIGCONT before the new holder wrote: the stale worker is in lease doubt and writes nothing; the newer write wins',
    async () => {
      const [frozen, rival] = await fixture.pool.start(2);
      if (!frozen || !rival) throw new Error('workers did not start');
      const identity = newIdentity('early-wake');
      const payload = { amount: 7, workMs: 0, pauseAt: 'before-write', pauseAttempt: 0 } as const;
      const message = await fixture.jobMessage(identity, ReliabilityJobType.record, payload);
      const frozenOutcome = frozen.deliver(message);
      await frozen.nextCheckpoint();
      frozen.pause();
      report.add('faultsInjected');
      await fixture.waitForLeaseExpiry(identity);
      const rivalOutcome = rival.deliver(message);
      const rivalStop = await rival.nextCheckpoint();

      frozen.continueFrom('before-write', identity.operationId);
      frozen.resume();
      const staleOutcome = await frozenOutcome;
      const recordAfterStale = await readRecord(identity);
      rival.continueFrom('before-write', identity.operationId);

      expect(rivalStop).toMatchObject({ fence: 2, attempt: 2 });
      expect(staleOutcome).toMatchObject({ ok: true, state: 'lease_in_doubt', fence: 1 });
      expect(recordAfterStale).toBeUndefined();
      expect(await rivalOutcome).toEqual({ ok: true, status: 'executed', state: 'succeeded', fence: 2 });
      expect(await readRecord(identity)).toMatchObject({ writtenBy: rival.workerId, writer_epoch: 2 });
      expect(await fixture.store.get(identity)).toMatchObject({ state: 'succeeded', fence: 2 });
      await tally(identity, ['succeeded']);
    },
    budget.testTimeoutMs,
  );

  it(
    'class C: SIGKILL after the provider call, before completion; the next claim reconciles instead of calling again',
    async () => {
      const [victim, successor] = await fixture.pool.start(2);
      if (!victim || !successor) throw new Error('workers did not start');
      const identity = newIdentity('kill-c');
      const payload = { amount: 42, workMs: 0, pauseAt: 'after-effect', pauseAttempt: 1 } as const;
      const message = await fixture.jobMessage(identity, ReliabilityJobType.charge, payload);
      const victimOutcome = victim.deliver(message);
      await victim.nextCheckpoint();
      await victim.kill();
      report.add('faultsInjected');
      await fixture.waitForLeaseExpiry(identity);

      const outcome = await successor.deliver(message);

      expect(await victimOutcome).toMatchObject({ ok: false, error: { name: 'ProcessExited' } });
      expect(outcome).toEqual({ ok: true, status: 'executed', state: 'succeeded', fence: 2 });
      const charges = (await fixture.ledger.chargesByOperation('acme')).get(identity.operationId) ?? [];
      const calls = (await fixture.ledger.callsByOperation('acme')).get(identity.operationId) ?? [];
      expect(charges).toHaveLength(1);
      expect(calls).toHaveLength(1);
      expect(await fixture.store.get(identity)).toMatchObject({
        state: 'succeeded',
        fence: 2,
        attempts: 2,
        result: { chargeId: charges[0]?.chargeId },
      });
      await tally(identity, ['succeeded']);
    },
    budget.testTimeoutMs,
  );

  it(
    'class D: SIGKILL after the send, before completion; no second attempt, the sweeper parks it unknown',
    async () => {
      const [victim, successor] = await fixture.pool.start(2);
      if (!victim || !successor) throw new Error('workers did not start');
      const identity = newIdentity('kill-d');
      const payload = { amount: 1, workMs: 0, pauseAt: 'after-effect', pauseAttempt: 1 } as const;
      const message = await fixture.jobMessage(identity, ReliabilityJobType.mail, payload);
      void victim.deliver(message);
      await victim.nextCheckpoint();
      await victim.kill();
      report.add('faultsInjected');
      await fixture.waitForLeaseExpiry(identity);

      const redelivered = await successor.deliver(message);
      const swept = await fixture.sweep();
      const afterSweep = await successor.deliver(message);

      expect(redelivered).toEqual({ ok: true, status: 'skipped', reason: 'exhausted' });
      expect(swept.sweptToUnknown).toBeGreaterThanOrEqual(1);
      expect(afterSweep).toEqual({ ok: true, status: 'skipped', reason: 'replay_finished' });
      expect(await fixture.store.get(identity)).toMatchObject({
        state: 'unknown',
        fence: 2,
        attempts: 1,
        errorCode: 'lease_expired_attempts_exhausted',
      });
      expect((await fixture.ledger.mailsByOperation('acme')).get(identity.operationId)).toHaveLength(1);
      await tally(identity, ['unknown']);
    },
    budget.testTimeoutMs,
  );

  it(
    "class C: SIGKILL after the provider call on the only attempt, swept unknown, requeued by the operator: the next worker process reconciles, and every step of the row is the model's",
    async () => {
      const [victim, successor] = await fixture.pool.start(2);
      if (!victim || !successor) throw new Error('workers did not start');
      const identity = newIdentity('retry-c');
      const payload = { amount: 9, workMs: 0, pauseAt: 'after-effect', pauseAttempt: 1 } as const;
      const message = await fixture.jobMessage(identity, ReliabilityJobType.charge, payload);
      // the producer's row (one attempt), then its message: the victim claims it, charges, and is killed
      await fixture.store.enqueue(
        parseNewWorkItem({
          identity,
          jobType: ReliabilityJobType.charge,
          payloadHash: payloadHash(payload),
          payloadInline: true,
          maxAttempts: 1,
        }),
      );
      void victim.deliver(message);
      await victim.nextCheckpoint();
      await victim.kill();
      report.add('faultsInjected');
      await fixture.waitForLeaseExpiry(identity);
      const swept = await fixture.sweep();

      // act: the operator requeues it (class C within its key window: no statement), a worker takes the wake-up
      const admin = { store: fixture.store, sqs: fixture.sqs, queueUrl: fixture.queueUrl, payloadsTable: 'unused' };
      await retryItem(admin, identity, { actor: 'ops', reason: 'provider answered 500s' });
      const outcome = await successor.deliver(message);

      // assert: first the model (a retry that cleared the effect mark would be an illegal operator-retry step
      // here, while the provider's key still keeps the charge single), then the effects
      expect(swept.sweptToUnknown).toBeGreaterThanOrEqual(1);
      expectModelSteps(identity);
      expect(outcome).toEqual({ ok: true, status: 'executed', state: 'succeeded', fence: 4 });
      const charges = (await fixture.ledger.chargesByOperation('acme')).get(identity.operationId) ?? [];
      expect(charges).toHaveLength(1);
      expect(await fixture.store.get(identity)).toMatchObject({
        state: 'succeeded',
        attempts: 1,
        effectMayHaveHappened: true,
      });
      await tally(identity, ['succeeded']);
    },
    budget.testTimeoutMs,
  );
});
