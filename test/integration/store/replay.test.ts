import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayloadConflictError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { WorkState } from '../../../lib/states.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { expectCreatedClaim, expectRejection, readRawItem } from '../../support/expectations.js';
import { newIdentity, newWorkItem, putWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

describe('same identity enqueued twice', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('replay');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it('with the same payload is a replay: the stored item comes back and nothing is written', async () => {
    // Prepare
    const { store, client, counter, clock } = fixture;
    const identity = newIdentity();
    const payload = { amount: 10, currency: 'EUR' };
    const first = await store.enqueue(newWorkItem(identity, { payloadHash: payloadHash(payload) }));
    const before = await readRawItem(client, tables.jobsTable, identity);
    clock.advance(5_000);
    counter.reset();

    // Act: same payload, different key order and number spelling
    const second = await store.enqueue(
      newWorkItem(identity, { payloadHash: payloadHash(JSON.parse('{"currency":"EUR","amount":10.0}')) }),
    );

    // Assert
    expect(first.outcome).toBe('created');
    expect(second).toEqual({ outcome: 'replay', item: first.item });
    expect(counter.writes()).toBe(1);
    expect(counter.byCommand.PutItemCommand).toBe(1);
    // At most the read-back after the refused write, and the fence epoch once the 5 s cache has lapsed.
    expect(counter.reads()).toBeLessThanOrEqual(2);
    expect(counter.total()).toBe(1 + (counter.byCommand.GetItemCommand ?? 0));
    expect(await readRawItem(client, tables.jobsTable, identity)).toEqual(before);
  });

  it('with a lease is a replay too: no second claim, the first holder keeps its fence', async () => {
    const { store, client, counter } = fixture;
    const identity = newIdentity();
    const holder = expectCreatedClaim(
      await store.enqueue(newWorkItem(identity), parseLease({ owner: 'w1', leaseMs: 60_000 })),
    );
    const before = await readRawItem(client, tables.jobsTable, identity);
    counter.reset();

    const again = await store.enqueue(newWorkItem(identity), parseLease({ owner: 'w2', leaseMs: 60_000 }));

    expect(again.outcome).toBe('replay');
    expect(again.item).toMatchObject({ state: WorkState.claimed, fence: 1, leaseOwner: 'w1', claimId: holder.claimId });
    expect('claim' in again).toBe(false);
    expect(counter.writes()).toBe(1);
    expect(await readRawItem(client, tables.jobsTable, identity)).toEqual(before);
  });

  it('of a finished item returns its stored state and outcome', async () => {
    const { store, client } = fixture;
    const identity = newIdentity();
    const stored = await putWorkItem(client, tables.jobsTable, {
      identity,
      state: WorkState.succeeded,
      overrides: { fence: 3, outcomeCode: 'refunded', result: { refundId: 'r-1' } },
    });

    const replay = await store.enqueue(newWorkItem(identity, { payloadHash: stored.payloadHash }));

    expect(replay).toEqual({ outcome: 'replay', item: stored });
  });

  it('with a different payload is a PayloadConflictError and the row stays byte-for-byte the same', async () => {
    const { store, client, counter } = fixture;
    const identity = newIdentity();
    await store.enqueue(
      newWorkItem(identity, { payloadHash: payloadHash({ amount: 10 }) }),
      parseLease({
        owner: 'w1',
        leaseMs: 60_000,
      }),
    );
    const before = await readRawItem(client, tables.jobsTable, identity);
    counter.reset();

    const error = await expectRejection(
      store.enqueue(
        newWorkItem(identity, { payloadHash: payloadHash({ amount: 11 }) }),
        parseLease({
          owner: 'w2',
          leaseMs: 60_000,
        }),
      ),
      PayloadConflictError,
    );

    expect(error.code).toBe('payload.conflict');
    expect((error.existing as WorkItem).payloadHash).toBe(payloadHash({ amount: 10 }));
    expect(counter.writes()).toBe(1);
    expect(await readRawItem(client, tables.jobsTable, identity)).toEqual(before);
  });
});
