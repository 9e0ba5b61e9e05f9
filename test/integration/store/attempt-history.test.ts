import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_HISTORY_LIMIT } from '../../../lib/store/work-items/attempt-history.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE_MS = 30_000;

describe('attempt history on the work row', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('attempts');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it('records each claim (fence, owner, start) and closes it with the outcome in the same writes', async () => {
    // prepare
    const identity = newIdentity('hist');
    const created = await fixture.store.enqueue(
      newWorkItem(identity),
      parseLease({ owner: 'worker-1', leaseMs: LEASE_MS }),
    );
    const first = created.outcome === 'created' ? created.claim : undefined;
    if (!first) throw new Error('expected a claim');
    const claimedAt = fixture.clock.now();
    fixture.clock.advance(1_000);
    await fixture.store.failRetryable(first, { errorCode: 'provider_timeout', retryDelayMs: 0 });
    fixture.clock.advance(1_000);
    fixture.counter.reset();

    // act
    const second = await fixture.store.claim(identity, parseLease({ owner: 'worker-2', leaseMs: LEASE_MS }));
    if (!second.claimed) throw new Error('expected a claim');
    const reclaimedAt = fixture.clock.now();
    fixture.clock.advance(500);
    await fixture.store.complete(second.claim, parseJobOutcome({ outcomeCode: 'refunded' }));

    // assert
    expect(fixture.counter.total()).toBe(2);
    const row = await fixture.store.get(identity);
    expect(row?.ah).toEqual([
      { f: 1, o: 'worker-1', s: claimedAt, e: claimedAt + 1_000, r: 'provider_timeout' },
      { f: 2, o: 'worker-2', s: reclaimedAt, e: reclaimedAt + 500, r: 'refunded' },
    ]);
  });

  it('keeps an attempt that lost its lease to a takeover, closed as lease_lost by the next holder', async () => {
    // prepare
    const identity = newIdentity('hist');
    await fixture.store.enqueue(newWorkItem(identity, { maxAttempts: 5 }));
    const stalled = await fixture.store.claim(identity, parseLease({ owner: 'stalled', leaseMs: LEASE_MS }));
    const stalledAt = fixture.clock.now();
    fixture.clock.advance(LEASE_MS + 1);

    // act
    const taken = await fixture.store.claim(identity, parseLease({ owner: 'rescuer', leaseMs: LEASE_MS }));
    if (!stalled.claimed || !taken.claimed) throw new Error('expected claims');
    await fixture.store.parkUnknown(taken.claim, { errorCode: 'provider_silent' });

    // assert
    const row = await fixture.store.get(identity);
    expect(row?.ah).toEqual([
      { f: 1, o: 'stalled', s: stalledAt, r: 'lease_lost' },
      { f: 2, o: 'rescuer', s: fixture.clock.now(), e: fixture.clock.now(), r: 'provider_silent' },
    ]);
  });

  it(`keeps only the last ${ATTEMPT_HISTORY_LIMIT} attempts`, async () => {
    // prepare
    const identity = newIdentity('hist');
    await fixture.store.enqueue(newWorkItem(identity, { maxAttempts: 9 }));

    // act
    for (let attempt = 1; attempt <= 7; attempt += 1) {
      const result = await fixture.store.claim(identity, parseLease({ owner: `w${attempt}`, leaseMs: LEASE_MS }));
      if (!result.claimed) throw new Error('expected a claim');
      await fixture.store.failRetryable(result.claim, { errorCode: `e${attempt}`, retryDelayMs: 0 });
    }

    // assert
    const row = await fixture.store.get(identity);
    const history = row?.ah as Array<{ f: number; o: string; r: string }>;
    expect(history.map((entry) => [entry.f, entry.o, entry.r])).toEqual([
      [3, 'w3', 'e3'],
      [4, 'w4', 'e4'],
      [5, 'w5', 'e5'],
      [6, 'w6', 'e6'],
      [7, 'w7', 'e7'],
    ]);
  });

  it('an operator cancel of a running attempt closes it as cancelled', async () => {
    // prepare
    const identity = newIdentity('hist');
    await fixture.store.enqueue(newWorkItem(identity));
    await fixture.store.claim(identity, parseLease({ owner: 'running', leaseMs: LEASE_MS }));

    // act
    await fixture.store.cancel(identity, { actor: 'alice', reason: 'customer withdrew' });

    // assert
    const row = await fixture.store.get(identity);
    expect(row?.ah).toEqual([{ f: 1, o: 'running', s: fixture.clock.now(), e: fixture.clock.now(), r: 'cancelled' }]);
  });
});
