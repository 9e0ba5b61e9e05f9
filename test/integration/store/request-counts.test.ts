import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnershipLostError } from '../../../lib/errors.js';
import { parseStepName } from '../../../lib/fenced/steps.js';
import type { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { parseLease, parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE = parseLease({ owner: 'w1', leaseMs: 60_000 });

/**
 * The cost of each transition in DynamoDB requests, on its happy path. The counter sits below the SDK's
 * retry layer, so every HTTP request counts. These are the numbers the design promises.
 */
describe('requests per transition', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('counts');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  async function claimed(): Promise<Claim> {
    const claim = expectCreatedClaim(await fixture.store.enqueue(newWorkItem(newIdentity()), LEASE));
    fixture.counter.reset();
    return claim;
  }

  it('happy path of a payloadRef job: enqueue-with-lease + complete = 2 writes, 0 reads (warm store)', async () => {
    const { store, counter } = fixture;
    // A cold store reads the fence epoch once; a warm one (any store that created a row in the last 5 s) does not.
    await store.epochs.current();
    counter.reset();

    const claim = expectCreatedClaim(await store.enqueue(newWorkItem(newIdentity()), LEASE));
    await store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }));

    expect(counter.byCommand).toEqual({ PutItemCommand: 1, UpdateItemCommand: 1 });
    expect(counter.writes()).toBe(2);
    expect(counter.reads()).toBe(0);
  });

  it('enqueue queued then claim = 2 writes, 0 reads', async () => {
    const { store, counter } = fixture;
    const identity = newIdentity();
    counter.reset();

    await store.enqueue(newWorkItem(identity));
    expectClaimed(await store.claim(identity, LEASE));

    expect(counter.byCommand).toEqual({ PutItemCommand: 1, UpdateItemCommand: 1 });
  });

  it.each<[string, (store: OperatorStore, claim: Claim) => Promise<unknown>]>([
    ['complete', (store, claim) => store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }))],
    ['failTerminal', (store, claim) => store.failTerminal(claim, { errorCode: 'bad' })],
    ['failRetryable', (store, claim) => store.failRetryable(claim, { errorCode: 'later', retryDelayMs: 1_000 })],
    ['parkUnknown', (store, claim) => store.parkUnknown(claim, { errorCode: 'timeout' })],
    ['quarantine', (store, claim) => store.quarantine(claim, { errorCode: 'schema' })],
    ['heartbeat', (store, claim) => store.heartbeat(claim, parseLeaseDuration(60_000))],
    ['recordStep', (store, claim) => store.recordStep(claim, parseStepName('charge'), { id: 'ch_1' })],
  ])('%s = 1 write (UpdateItem), 0 reads', async (_name, act) => {
    const claim = await claimed();

    await act(fixture.store, claim);

    expect(fixture.counter.byCommand).toEqual({ UpdateItemCommand: 1 });
  });

  it('cancel = 1 read (the observed state and fence) + 1 write (conditional on them)', async () => {
    const claim = await claimed();

    await fixture.store.cancel(claim.identity, { actor: 'alice', reason: 'duplicate' });

    expect(fixture.counter.byCommand).toEqual({ GetItemCommand: 1, UpdateItemCommand: 1 });
  });

  it('a rejected stale write = 1 write + at most 1 read-back (none where the engine returns the old item)', async () => {
    const claim = await claimed();
    await fixture.store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }));
    fixture.counter.reset();

    await expect(fixture.store.heartbeat(claim, parseLeaseDuration(60_000))).rejects.toBeInstanceOf(OwnershipLostError);

    expect(fixture.counter.writes()).toBe(1);
    expect(fixture.counter.reads()).toBeLessThanOrEqual(1);
  });
});
