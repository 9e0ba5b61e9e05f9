import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkState } from '../../../lib/states.js';
import { claimability, type NotClaimableReason } from '../../../lib/store/work-items/requests.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim, expectState, readRawItem } from '../../support/expectations.js';
import { FACTORY_NOW, newIdentity, newWorkItem, putWorkItem, workItemInState } from '../../support/factories.js';
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

  it('an awaiting_approval item (even one whose due time has passed) is refused by the claim write itself, unchanged', async () => {
    // The claim is sent without a read first: the engine's condition is what refuses it (model mutation
    // claim-while-awaiting), and claimability only explains the refusal.
    const { store, client, clock } = fixture;
    const identity = newIdentity();
    clock.set(FACTORY_NOW);
    await putWorkItem(client, tables.jobsTable, {
      identity,
      state: WorkState.awaiting_approval,
      overrides: { fence: 0, attempts: 0, availableAt: FACTORY_NOW - 1_000 },
    });
    const before = await readRawItem(client, tables.jobsTable, identity);

    const result = await store.claim(identity, parseLease(lease()));

    expect(result).toMatchObject({ claimed: false, reason: 'awaiting_approval' });
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

/** When the table of cases below claims: a minute after the factory's rows were made. */
const NOW = FACTORY_NOW + 60_000;

/**
 * Rows at the edges of the claim rule: due exactly now, a lease ending exactly now, attempts used up, attributes
 * absent, every finished state. Each names what claimability must say (claimable, or the reason).
 */
const CASES: Array<[string, WorkState, Partial<WorkItem>, 'claimable' | NotClaimableReason, string[]?]> = [
  ['queued, due a moment ago', WorkState.queued, { availableAt: NOW - 1 }, 'claimable'],
  ['queued, due exactly now', WorkState.queued, { availableAt: NOW }, 'claimable'],
  ['queued, due a moment from now', WorkState.queued, { availableAt: NOW + 1 }, 'not_due'],
  ['queued without availableAt', WorkState.queued, {}, 'not_due', ['availableAt']],
  [
    'queued and due, attempts used up',
    WorkState.queued,
    { availableAt: NOW, attempts: 3, maxAttempts: 3 },
    'exhausted',
  ],
  [
    'queued, not due, attempts used up',
    WorkState.queued,
    { availableAt: NOW + 1, attempts: 3, maxAttempts: 3 },
    'exhausted',
  ],
  ['claimed, lease ended a moment ago', WorkState.claimed, { leaseExpiresAt: NOW - 1 }, 'claimable'],
  ['claimed, lease ends exactly now', WorkState.claimed, { leaseExpiresAt: NOW }, 'leased'],
  ['claimed, lease alive', WorkState.claimed, { leaseExpiresAt: NOW + 1 }, 'leased'],
  [
    'claimed, lease ended, attempts used up',
    WorkState.claimed,
    { leaseExpiresAt: NOW - 1, attempts: 2, maxAttempts: 2 },
    'exhausted',
  ],
  [
    'claimed, lease alive, attempts used up',
    WorkState.claimed,
    { leaseExpiresAt: NOW + 1, attempts: 2, maxAttempts: 2 },
    'leased',
  ],
  ['claimed without leaseExpiresAt', WorkState.claimed, {}, 'not_due', ['leaseExpiresAt']],
  ['succeeded', WorkState.succeeded, {}, 'finished'],
  ['failed_terminal', WorkState.failed_terminal, {}, 'finished'],
  ['unknown', WorkState.unknown, {}, 'finished'],
  ['quarantined', WorkState.quarantined, { availableAt: NOW - 1 }, 'finished'],
  ['cancelled', WorkState.cancelled, {}, 'finished'],
];

describe('claimability agrees with the claim condition the engine evaluates', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('claim-rule');
    fixture = storeFixture(tables.jobsTable);
    fixture.clock.set(NOW);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it.each(CASES)('%s', async (_label, state, overrides, expected, absent = []) => {
    // prepare: the row as written, read back as the store reads it
    const identity = newIdentity();
    const row: Record<string, unknown> = {
      ...workItemInState({ identity, state, overrides: { maxAttempts: 3, ...overrides } }),
    };
    for (const attribute of absent) delete row[attribute];
    await fixture.client.send(new PutCommand({ TableName: tables.jobsTable, Item: row }));
    const stored = await fixture.store.get(identity);
    const verdict = claimability(stored, NOW);

    // act: the conditional write decides
    const result = await fixture.store.claim(identity, parseLease(lease()));

    // assert: the pure rule says what the table case says, and the engine did the same
    expect(verdict.claimable ? 'claimable' : verdict.reason).toBe(expected);
    expect(result.claimed).toBe(verdict.claimable);
    if (!result.claimed && !verdict.claimable) expect(result.reason).toBe(verdict.reason);
  });

  it('a missing item is missing, for the rule and for the claim', async () => {
    const identity = newIdentity();
    expect(claimability(undefined, NOW)).toEqual({ claimable: false, reason: 'missing' });
    expect(await fixture.store.claim(identity, parseLease(lease()))).toEqual({ claimed: false, reason: 'missing' });
  });
});
