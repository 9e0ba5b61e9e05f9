import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkState } from '../../../lib/states.js';
import { parseLease } from '../../../lib/store/schemas.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim, expectState, readRawItem } from '../../support/expectations.js';
import { FACTORY_NOW, newIdentity, newWorkItem, putWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE_MS = 30_000;
const lease = (owner = 'w2') => ({ owner, leaseMs: LEASE_MS });

describe('when an item is claimable', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('claimable');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it('an expired lease with no attempts left is not claimable: exhausted, and the row is untouched', async () => {
    // Prepare: the only attempt claims and then stalls past its lease.
    const { store, client, clock } = fixture;
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity, { maxAttempts: 1 }), parseLease(lease('w1')));
    clock.advance(LEASE_MS + 1);
    const before = await readRawItem(client, tables.jobsTable, identity);

    // Act
    const result = await store.claim(identity, parseLease(lease()));

    // Assert
    expect(result).toMatchObject({ claimed: false, reason: 'exhausted', item: { fence: 1, attempts: 1 } });
    expect(await readRawItem(client, tables.jobsTable, identity)).toEqual(before);
  });

  it('an expired lease on the last of several attempts is exhausted too', async () => {
    const { store, clock } = fixture;
    const identity = newIdentity();
    clock.set(FACTORY_NOW + 60_000);
    await putWorkItem(fixture.client, tables.jobsTable, {
      identity,
      state: WorkState.claimed,
      overrides: { fence: 3, attempts: 3, maxAttempts: 3, leaseExpiresAt: FACTORY_NOW },
    });

    const result = await store.claim(identity, parseLease(lease()));

    expect(result).toMatchObject({ claimed: false, reason: 'exhausted' });
    expect((await store.get(identity))?.fence).toBe(3);
  });

  it('a queued item with no attempts left is exhausted', async () => {
    const { store, clock } = fixture;
    const identity = newIdentity();
    clock.set(FACTORY_NOW);
    await putWorkItem(fixture.client, tables.jobsTable, {
      identity,
      state: WorkState.queued,
      overrides: { fence: 2, attempts: 2, maxAttempts: 2 },
    });

    expect(await store.claim(identity, parseLease(lease()))).toMatchObject({ claimed: false, reason: 'exhausted' });
  });

  it('an expired lease with attempts left is taken over with fence + 1', async () => {
    const { store, clock } = fixture;
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity, { maxAttempts: 2 }), parseLease(lease('w1')));
    clock.advance(LEASE_MS + 1);

    const claim = expectClaimed(await store.claim(identity, parseLease(lease())));

    expect(claim).toMatchObject({ fence: 2, attempt: 2, maxAttempts: 2, takeover: true, owner: 'w2' });
  });

  it('a live lease is leased', async () => {
    const { store } = fixture;
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity), parseLease(lease('w1')));

    expect(await store.claim(identity, parseLease(lease()))).toMatchObject({ claimed: false, reason: 'leased' });
  });

  it('a missing item is missing', async () => {
    const { store } = fixture;

    expect(await store.claim(newIdentity(), parseLease(lease()))).toEqual({ claimed: false, reason: 'missing' });
  });

  it.each([
    WorkState.succeeded,
    WorkState.failed_terminal,
    WorkState.unknown,
    WorkState.quarantined,
    WorkState.cancelled,
  ])('a %s item is finished and keeps its fence', async (state) => {
    const { store, client, clock } = fixture;
    const identity = newIdentity();
    clock.set(FACTORY_NOW);
    await putWorkItem(client, tables.jobsTable, { identity, state });
    const before = await readRawItem(client, tables.jobsTable, identity);

    const result = await store.claim(identity, parseLease(lease()));

    expect(result).toMatchObject({ claimed: false, reason: 'finished' });
    expect(await readRawItem(client, tables.jobsTable, identity)).toEqual(before);
  });

  it('a queued item is not claimable before availableAt, and is once it has passed', async () => {
    const { store, clock } = fixture;
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity, { availableAt: clock.now() + 10_000 }));

    const early = await store.claim(identity, parseLease(lease()));
    clock.advance(10_000);
    const due = await store.claim(identity, parseLease(lease()));

    expect(early).toMatchObject({ claimed: false, reason: 'not_due' });
    expect(expectClaimed(due)).toMatchObject({ fence: 1, attempt: 1, takeover: false });
  });

  it('a retryable failure waits for its delay, then is claimed again with fence + 1 (not a takeover)', async () => {
    const { store, clock } = fixture;
    const identity = newIdentity();
    const first = expectCreatedClaim(await store.enqueue(newWorkItem(identity), parseLease(lease('w1'))));

    const next = await store.failRetryable(first, { errorCode: 'throttled', retryDelayMs: 5_000 });
    const early = await store.claim(identity, parseLease(lease()));
    clock.advance(5_000);
    const retry = expectClaimed(await store.claim(identity, parseLease(lease())));

    expect(next).toBe(WorkState.queued);
    expect(early).toMatchObject({ claimed: false, reason: 'not_due' });
    expect(retry).toMatchObject({ fence: 2, attempt: 2, takeover: false });
  });

  it('a retryable failure on the last attempt is terminal, never unknown', async () => {
    const { store } = fixture;
    const identity = newIdentity();
    const only = expectCreatedClaim(
      await store.enqueue(newWorkItem(identity, { maxAttempts: 1 }), parseLease(lease('w1'))),
    );

    const next = await store.failRetryable(only, { errorCode: 'throttled', retryDelayMs: 5_000 });

    expect(next).toBe(WorkState.failed_terminal);
    const item = await expectState(store, identity, WorkState.failed_terminal);
    expect(item.errorCode).toBe('attempts_exhausted');
    expect(item.errorMessage).toContain('throttled');
  });
});
