import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { OwnershipLostError, PayloadConflictError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity, type ValidIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import type { NewSuccessor } from '../../../lib/store/successors/successor-requests.js';
import { SUCCESSORS_STEP } from '../../../lib/store/successors/successors.js';
import { newWorkItem as buildNewWorkItem, parseLease } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { requireNoTransactions, requireTransactions } from '../../support/capability.js';
import { createTestTables, engineEndpoints, type TestTables } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim, expectRejection, expectState } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE_MS = 30_000;
const outcome = parseJobOutcome({ outcomeCode: 'shipped' });

describe('successor jobs: written with the parent completion, each once, under its fence', () => {
  let tables: TestTables;
  let clock: ManualClock;
  let worker1: StoreFixture;
  let worker2: StoreFixture;
  let payloads: PayloadStore;

  beforeAll(async () => {
    tables = await createTestTables('successors');
    clock = new ManualClock();
    worker1 = storeFixture(tables.jobsTable, { clock });
    worker2 = storeFixture(tables.jobsTable, { clock });
    payloads = new PayloadStore(worker1.client, tables.payloadsTable, clock);
  });
  afterAll(async () => {
    worker1.client.destroy();
    worker2.client.destroy();
    await tables.drop();
  });

  /** A successor of `parent` named `name` with `body`, as the worker's buffer builds it. */
  function successorOf(parent: ValidIdentity, name: string, body: unknown): NewSuccessor {
    const identity = parseIdentity({ tenantId: parent.tenantId, operationId: `${parent.operationId}/${name}` });
    const item = buildNewWorkItem(
      identity,
      { jobType: 'notify', payloadHash: payloadHash(body), payload: { inline: true } },
      3,
    );
    return { item: { ...item, parentOperationId: parent.operationId }, body };
  }

  async function claimed(identity: ValidIdentity, store = worker1.store): Promise<Claim> {
    return expectCreatedClaim(
      await store.enqueue(newWorkItem(identity), parseLease({ owner: 'w1', leaseMs: LEASE_MS })),
    );
  }

  async function takeover(identity: ValidIdentity): Promise<{ stale: Claim; fresh: Claim }> {
    const stale = await claimed(identity);
    clock.advance(LEASE_MS + 1);
    const fresh = expectClaimed(await worker2.store.claim(identity, parseLease({ owner: 'w2', leaseMs: LEASE_MS })));
    return { stale, fresh };
  }

  it('completes the parent and creates each successor queued and due, with its body and its parent named', async () => {
    const parent = newIdentity();
    const claim = await claimed(parent);
    const list = [successorOf(parent, 'email', { to: 'a' }), successorOf(parent, 'sms', { to: 'b' })];

    const committed = await worker1.store.completeWithSuccessors(claim, outcome, list, payloads);

    expect(committed.mode).toBe(engineEndpoints().transactions ? 'transaction' : 'durable_step');
    expect(committed.created.map((row) => row.operationId)).toEqual([
      `${parent.operationId}/email`,
      `${parent.operationId}/sms`,
    ]);
    const row = await expectState(worker1.store, parent, WorkState.succeeded);
    expect(row.successors).toEqual([`${parent.operationId}/email`, `${parent.operationId}/sms`]);
    for (const successor of list) {
      const child = await expectState(worker1.store, successor.item.identity, WorkState.queued);
      expect(child).toMatchObject({
        parentOperationId: parent.operationId,
        jobType: 'notify',
        payloadHash: successor.item.payloadHash,
        payloadInline: true,
        fence: 0,
        availableAt: clock.now(),
      });
      expect((await payloads.read(successor.item.identity))?.body).toEqual(successor.body);
    }
  });

  it('a stale holder enqueues nothing, and the holder that took over enqueues each successor once', async () => {
    const parent = newIdentity();
    const { stale, fresh } = await takeover(parent);
    const list = [successorOf(parent, 'email', { to: 'a' })];

    await expectRejection(worker1.store.completeWithSuccessors(stale, outcome, list, payloads), OwnershipLostError);
    expect(await worker1.store.get(list[0]?.item.identity as ValidIdentity)).toBeUndefined();

    const committed = await worker2.store.completeWithSuccessors(fresh, outcome, list, payloads);
    expect(committed.created).toHaveLength(1);
    // The stale holder wakes up again after the takeover completed: still refused, still one successor.
    await expectRejection(worker1.store.completeWithSuccessors(stale, outcome, list, payloads), OwnershipLostError);
    const child = await expectState(worker1.store, list[0]?.item.identity as ValidIdentity, WorkState.queued);
    expect(child.createdAt).toBe(committed.created[0]?.createdAt);
  });

  it('a successor that already holds the same job is a replay: the parent completes, nothing is written twice', async () => {
    const parent = newIdentity();
    const claim = await claimed(parent);
    const existing = successorOf(parent, 'email', { to: 'a' });
    await payloads.write(existing.item.identity, existing.body, existing.item.payloadHash);
    await worker1.store.enqueue(existing.item);
    const fresh = successorOf(parent, 'sms', { to: 'b' });

    const committed = await worker1.store.completeWithSuccessors(claim, outcome, [existing, fresh], payloads);

    expect(committed.replayed).toEqual([existing.item.identity.operationId]);
    expect(committed.created.map((row) => row.operationId)).toEqual([fresh.item.identity.operationId]);
    await expectState(worker1.store, parent, WorkState.succeeded);
  });

  it('another job under a successor identity is a conflict: the parent is not completed, and nothing is written anywhere', async () => {
    const parent = newIdentity();
    const claim = await claimed(parent);
    // The other job's row exists and its body is not stored yet (a carried body is stored after its row).
    const other = successorOf(parent, 'email', { to: 'someone else' });
    await worker1.store.enqueue(other.item);

    await expectRejection(
      worker1.store.completeWithSuccessors(claim, outcome, [successorOf(parent, 'email', { to: 'a' })], payloads),
      PayloadConflictError,
    );

    await expectState(worker1.store, parent, WorkState.claimed);
    // The refused successor left the other job's payload slot empty: that job's own body still goes there, and it runs.
    expect(await payloads.inspect(other.item.identity)).toEqual({ kind: 'empty' });
    expect(await payloads.write(other.item.identity, other.body, other.item.payloadHash)).toBe('stored');
    const otherClaim = expectClaimed(
      await worker2.store.claim(other.item.identity, parseLease({ owner: 'w2', leaseMs: LEASE_MS })),
    );
    expect(otherClaim.payloadHash).toBe(other.item.payloadHash);
  });

  it("another job's body already in a successor's slot (its row not made yet) is a conflict: no successor row", async () => {
    const parent = newIdentity();
    const claim = await claimed(parent);
    const other = successorOf(parent, 'email', { to: 'a producer body' });
    await payloads.write(other.item.identity, other.body, other.item.payloadHash);

    await expectRejection(
      worker1.store.completeWithSuccessors(claim, outcome, [successorOf(parent, 'email', { to: 'a' })], payloads),
      PayloadConflictError,
    );

    expect(await worker1.store.get(other.item.identity)).toBeUndefined();
    expect((await payloads.read(other.item.identity))?.body).toEqual(other.body);
    await expectState(worker1.store, parent, WorkState.claimed);
  });

  it('with transactions, a refused successor leaves no other successor behind (one transaction)', async (context) => {
    requireTransactions(context);
    const parent = newIdentity();
    const claim = await claimed(parent);
    const first = successorOf(parent, 'a-first', { n: 1 });
    const conflicting = successorOf(parent, 'b-second', { n: 2 });
    await worker1.store.enqueue(successorOf(parent, 'b-second', { n: 'other' }).item);

    await expectRejection(
      worker1.store.completeWithSuccessors(claim, outcome, [first, conflicting], payloads),
      PayloadConflictError,
    );

    expect(await worker1.store.get(first.item.identity)).toBeUndefined();
    expect(await payloads.read(first.item.identity)).toBeUndefined();
    const row = await expectState(worker1.store, parent, WorkState.claimed);
    expect(row.successors).toBeUndefined();
  });

  it('without transactions, the successor set is first recorded as a fenced step of the parent', async (context) => {
    requireNoTransactions(context);
    const parent = newIdentity();
    const claim = await claimed(parent);

    const committed = await worker1.store.completeWithSuccessors(
      claim,
      outcome,
      [successorOf(parent, 'email', { to: 'a' })],
      payloads,
    );

    expect(committed.mode).toBe('durable_step');
    const row = await expectState(worker1.store, parent, WorkState.succeeded);
    expect(row.steps[SUCCESSORS_STEP]).toMatchObject({ fence: claim.fence, result: { count: 1 } });
  });
});
