import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IllegalTransitionError, ItemNotFoundError, OwnershipLostError } from '../../../lib/errors.js';
import { WorkState } from '../../../lib/states.js';
import { requeueTransition, resolveTransition } from '../../../lib/store/operator/operator-transitions.js';
import { parseLease, parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import {
  expectClaimed,
  expectCreatedClaim,
  expectRejection,
  expectState,
  readRawItem,
} from '../../support/expectations.js';
import { FACTORY_NOW, newIdentity, newWorkItem, putWorkItem } from '../../support/factories.js';
import { beforeNextRequest } from '../../support/race.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE = parseLease({ owner: 'w1', leaseMs: 60_000 });
const ALICE = { actor: 'alice@example.com', reason: 'customer withdrew the request' };

describe('operator transitions', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('operator');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it('cancel of a running job raises the fence, records an audit entry, and cuts the holder off', async () => {
    // Prepare
    const { store, clock } = fixture;
    const identity = newIdentity();
    const holder = expectCreatedClaim(await store.enqueue(newWorkItem(identity), LEASE));
    clock.advance(1_000);

    // Act
    const cancelled = await store.cancel(identity, ALICE);

    // Assert
    expect(cancelled).toMatchObject({ state: WorkState.cancelled, fence: 2, finishedAt: clock.now() });
    const item = await expectState(store, identity, WorkState.cancelled);
    expect(item.fence).toBe(2);
    expect(item.audit).toEqual([
      { ...ALICE, action: 'cancel', at: clock.now(), from: WorkState.claimed, to: WorkState.cancelled, fence: 2 },
    ]);
    const error = await expectRejection(
      store.complete(holder, parseJobOutcome({ outcomeCode: 'ok' })),
      OwnershipLostError,
    );
    expect(error).toMatchObject({ fence: 1, currentFence: 2, currentState: WorkState.cancelled });
    await expectRejection(store.heartbeat(holder, parseLeaseDuration(60_000)), OwnershipLostError);
    await expectState(store, identity, WorkState.cancelled);
  });

  it('cancel of a queued job keeps it from ever being claimed', async () => {
    const { store } = fixture;
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity));

    await store.cancel(identity, ALICE);

    expect(await store.claim(identity, LEASE)).toMatchObject({ claimed: false, reason: 'finished' });
    expect((await store.get(identity))?.fence).toBe(1);
  });

  it('cancel of an unknown job is allowed and audited', async () => {
    const { store, client } = fixture;
    const identity = newIdentity();
    await putWorkItem(client, tables.jobsTable, { identity, state: WorkState.unknown, overrides: { fence: 4 } });

    const cancelled = await store.cancel(identity, ALICE);

    expect(cancelled).toMatchObject({ state: WorkState.cancelled, fence: 5 });
    expect(cancelled.audit?.[0]).toMatchObject({ from: WorkState.unknown, fence: 5 });
  });

  it.each([WorkState.succeeded, WorkState.failed_terminal, WorkState.quarantined, WorkState.cancelled])(
    'cancel of a %s job is an IllegalTransitionError and writes nothing',
    async (state) => {
      const { store, client, counter } = fixture;
      const identity = newIdentity();
      await putWorkItem(client, tables.jobsTable, { identity, state });
      const before = await readRawItem(client, tables.jobsTable, identity);
      counter.reset();

      const error = await expectRejection(store.cancel(identity, ALICE), IllegalTransitionError);

      expect(error.code).toBe('transition.illegal');
      expect((error.current as WorkItem).state).toBe(state);
      expect(counter.writes()).toBe(0);
      expect(await readRawItem(client, tables.jobsTable, identity)).toEqual(before);
    },
  );

  it('cancel of a missing job is an ItemNotFoundError and creates nothing', async () => {
    const { store } = fixture;
    const identity = newIdentity();

    const error = await expectRejection(store.cancel(identity, ALICE), ItemNotFoundError);

    expect(error.identity).toEqual(identity);
    expect(await store.get(identity)).toBeUndefined();
  });

  it('operate refuses when the item changed between its read and its write (compare-and-swap)', async () => {
    // Prepare: the operator reads fence 1; a rival's takeover claim lands before the operator's write.
    const { store, client, clock } = fixture;
    const rival = storeFixture(tables.jobsTable, { clock });
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity), LEASE);
    clock.advance(60_001);
    const race = beforeNextRequest(client, 'UpdateCommand', () =>
      rival.store.claim(identity, parseLease({ ...LEASE, owner: 'w2' })),
    );

    // Act
    const error = await expectRejection(store.cancel(identity, ALICE), IllegalTransitionError);

    // Assert: the rival's claim stands; the cancel wrote nothing.
    expect(race.ran()).toBe(true);
    expect(error.message).toContain('changed while the operation ran');
    const item = await expectState(store, identity, WorkState.claimed);
    expect(item).toMatchObject({ fence: 2, leaseOwner: 'w2' });
    expect(item.audit).toBeUndefined();
    rival.client.destroy();
  });

  it('operate resolves an unknown job to succeeded with an audit entry and fence + 1', async () => {
    const { store, client, clock } = fixture;
    const identity = newIdentity();
    clock.set(FACTORY_NOW);
    await putWorkItem(client, tables.jobsTable, { identity, state: WorkState.unknown, overrides: { fence: 2 } });

    const resolved = await store.operate(identity, [WorkState.unknown], (item) =>
      resolveTransition(item, WorkState.succeeded, { ...ALICE, outcomeCode: 'confirmed_with_bank' }, clock.now()),
    );

    expect(resolved).toMatchObject({ state: WorkState.succeeded, fence: 3, outcomeCode: 'confirmed_with_bank' });
    expect(resolved).not.toHaveProperty('parkedState');
    expect(resolved.audit?.at(-1)).toMatchObject({ action: 'resolve_succeeded', from: 'unknown', to: 'succeeded' });
  });

  it('operate requeues a failed job with a fresh attempt budget; the fence continues', async () => {
    const { store, client, clock } = fixture;
    const identity = newIdentity();
    clock.set(FACTORY_NOW);
    await putWorkItem(client, tables.jobsTable, {
      identity,
      state: WorkState.failed_terminal,
      overrides: { fence: 3, attempts: 3, maxAttempts: 3 },
    });

    await store.operate(identity, [WorkState.failed_terminal], (item) =>
      requeueTransition(item, ALICE, store.deadlines.shardOf(identity), clock.now()),
    );
    const claim = expectClaimed(await store.claim(identity, LEASE));

    expect(claim).toMatchObject({ fence: 5, attempt: 1 });
  });
});
