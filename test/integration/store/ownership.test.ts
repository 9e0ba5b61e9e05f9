import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { OwnershipLostError } from '../../../lib/errors.js';
import { parseStepName } from '../../../lib/fenced/steps.js';
import type { ValidIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import type { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { parseLease, parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { Claim, WorkItem } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import {
  expectClaimed,
  expectCreatedClaim,
  expectRejection,
  expectState,
  readRawItem,
} from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE_MS = 30_000;

/** Every write a superseded holder might still attempt. */
const staleWrites: Array<[string, (store: WorkItemStore, claim: Claim) => Promise<unknown>]> = [
  ['heartbeat', (store, claim) => store.heartbeat(claim, parseLeaseDuration(LEASE_MS))],
  [
    'complete',
    (store, claim) => store.complete(claim, parseJobOutcome({ outcomeCode: 'stale', result: { by: 'worker-1' } })),
  ],
  ['failTerminal', (store, claim) => store.failTerminal(claim, { errorCode: 'stale_failure' })],
  ['failRetryable', (store, claim) => store.failRetryable(claim, { errorCode: 'stale_retry', retryDelayMs: 0 })],
  ['parkUnknown', (store, claim) => store.parkUnknown(claim, { errorCode: 'stale_unknown' })],
  ['quarantine', (store, claim) => store.quarantine(claim, { errorCode: 'stale_quarantine' })],
  ['recordStep', (store, claim) => store.recordStep(claim, parseStepName('charge'), { by: 'worker-1' })],
];

describe('a worker that paused past its lease', () => {
  let tables: TestTables;
  let worker1: StoreFixture;
  let worker2: StoreFixture;
  let clock: ManualClock;

  beforeAll(async () => {
    tables = await createTestTables('ownership');
    clock = new ManualClock();
    worker1 = storeFixture(tables.jobsTable, { clock });
    worker2 = storeFixture(tables.jobsTable, { clock });
  });
  afterAll(async () => {
    worker1.client.destroy();
    worker2.client.destroy();
    await tables.drop();
  });

  /** Worker 1 claims, stalls past its lease, worker 2 takes over with fence + 1. */
  async function takeover(identity: ValidIdentity): Promise<{ stale: Claim; fresh: Claim }> {
    const stale = expectCreatedClaim(
      await worker1.store.enqueue(newWorkItem(identity), parseLease({ owner: 'worker-1', leaseMs: LEASE_MS })),
    );
    clock.advance(LEASE_MS + 1);
    const fresh = expectClaimed(
      await worker2.store.claim(identity, parseLease({ owner: 'worker-2', leaseMs: LEASE_MS })),
    );
    return { stale, fresh };
  }

  it('lets the second worker take over with fence + 1 and complete', async () => {
    const identity = newIdentity();

    const { stale, fresh } = await takeover(identity);
    await worker2.store.complete(fresh, parseJobOutcome({ outcomeCode: 'ok', result: { by: 'worker-2' } }));

    expect(stale.fence).toBe(1);
    expect(fresh.fence).toBe(2);
    expect(fresh.takeover).toBe(true);
    expect(fresh.attempt).toBe(2);
    const item = await expectState(worker2.store, identity, WorkState.succeeded);
    expect(item).toMatchObject({ fence: 2, outcomeCode: 'ok', result: { by: 'worker-2' } });
  });

  it.each(staleWrites)(
    'rejects the stale %s after the new holder completed, and changes nothing',
    async (_name, write) => {
      // Prepare
      const identity = newIdentity();
      const { stale, fresh } = await takeover(identity);
      await worker2.store.complete(fresh, parseJobOutcome({ outcomeCode: 'ok', result: { by: 'worker-2' } }));
      const before = await readRawItem(worker1.client, tables.jobsTable, identity);

      // Act
      const error = await expectRejection(write(worker1.store, stale), OwnershipLostError);

      // Assert
      expect(error.code).toBe('ownership.lost');
      expect((error.current as WorkItem).fence).toBe(2);
      expect(error).toMatchObject({ fence: 1, currentFence: 2, currentState: WorkState.succeeded });
      expect(await readRawItem(worker1.client, tables.jobsTable, identity)).toEqual(before);
      const item = await expectState(worker1.store, identity, WorkState.succeeded);
      expect(item).toMatchObject({ fence: 2, outcomeCode: 'ok', result: { by: 'worker-2' } });
    },
  );

  it.each(staleWrites)(
    'rejects the stale %s while the new holder is still running (fence, not state, decides)',
    async (_name, write) => {
      const identity = newIdentity();
      const { stale, fresh } = await takeover(identity);
      const before = await readRawItem(worker1.client, tables.jobsTable, identity);

      await expectRejection(write(worker1.store, stale), OwnershipLostError);

      expect(await readRawItem(worker1.client, tables.jobsTable, identity)).toEqual(before);
      await worker2.store.complete(fresh, parseJobOutcome({ outcomeCode: 'ok' }));
      await expectState(worker2.store, identity, WorkState.succeeded);
    },
  );

  it.each<[string, WorkState, (store: WorkItemStore, claim: Claim) => Promise<unknown>]>([
    ['complete', WorkState.succeeded, (store, claim) => store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }))],
    ['failTerminal', WorkState.failed_terminal, (store, claim) => store.failTerminal(claim, { errorCode: 'bad' })],
    [
      'failRetryable',
      WorkState.queued,
      (store, claim) => store.failRetryable(claim, { errorCode: 'later', retryDelayMs: 1_000 }),
    ],
    ['parkUnknown', WorkState.unknown, (store, claim) => store.parkUnknown(claim, { errorCode: 'timeout' })],
    ['quarantine', WorkState.quarantined, (store, claim) => store.quarantine(claim, { errorCode: 'schema' })],
  ])(
    'rejects the stale %s even when the new holder already moved the item to the same state',
    async (_name, state, write) => {
      const identity = newIdentity();
      const { stale, fresh } = await takeover(identity);
      await write(worker2.store, fresh);
      const before = await readRawItem(worker1.client, tables.jobsTable, identity);

      await expectRejection(write(worker1.store, stale), OwnershipLostError);

      expect(await readRawItem(worker1.client, tables.jobsTable, identity)).toEqual(before);
      expect(await worker1.store.get(identity)).toMatchObject({ state, fence: 2 });
    },
  );

  it('hands steps recorded under the old fence to the new holder and rejects further steps from the old one', async () => {
    const identity = newIdentity();
    const stale = expectCreatedClaim(
      await worker1.store.enqueue(newWorkItem(identity), parseLease({ owner: 'worker-1', leaseMs: LEASE_MS })),
    );
    await worker1.store.recordStep(stale, parseStepName('charge'), { chargeId: 'ch_1' });
    clock.advance(LEASE_MS + 1);

    const fresh = expectClaimed(
      await worker2.store.claim(identity, parseLease({ owner: 'worker-2', leaseMs: LEASE_MS })),
    );

    expect(fresh.steps).toEqual({ charge: { fence: 1, at: expect.any(Number), result: { chargeId: 'ch_1' } } });
    await expectRejection(worker1.store.recordStep(stale, parseStepName('refund'), {}), OwnershipLostError);
  });

  it('does not let a second claim in while the lease is live', async () => {
    const identity = newIdentity();
    const first = expectCreatedClaim(
      await worker1.store.enqueue(newWorkItem(identity), parseLease({ owner: 'worker-1', leaseMs: LEASE_MS })),
    );
    clock.advance(LEASE_MS); // exactly at expiry: still leased (expiry is exclusive)

    const second = await worker2.store.claim(identity, parseLease({ owner: 'worker-2', leaseMs: LEASE_MS }));

    expect(second).toMatchObject({ claimed: false, reason: 'leased' });
    await worker1.store.complete(first, parseJobOutcome({ outcomeCode: 'ok' }));
  });

  it('lets the holder keep its claim alive with heartbeats across what would have been expiry', async () => {
    const identity = newIdentity();
    let claim = expectCreatedClaim(
      await worker1.store.enqueue(newWorkItem(identity), parseLease({ owner: 'worker-1', leaseMs: LEASE_MS })),
    );

    for (let beat = 0; beat < 3; beat += 1) {
      clock.advance(LEASE_MS / 2);
      claim = await worker1.store.heartbeat(claim, parseLeaseDuration(LEASE_MS));
    }
    clock.advance(LEASE_MS / 2);
    const intruder = await worker2.store.claim(identity, parseLease({ owner: 'worker-2', leaseMs: LEASE_MS }));

    expect(intruder).toMatchObject({ claimed: false, reason: 'leased' });
    expect(claim.leaseExpiresAt).toBe(clock.now() + LEASE_MS / 2);
    await worker1.store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }));
    expect((await worker1.store.get(identity))?.fence).toBe(1);
  });

  it('a late copy of an earlier renewal never moves the lease back (model mutation renew-no-token)', async () => {
    // Prepare: the holder renews at t1 (lease L1), then again at t2 (lease L2 > L1).
    const identity = newIdentity();
    const claimed = expectCreatedClaim(
      await worker1.store.enqueue(newWorkItem(identity), parseLease({ owner: 'worker-1', leaseMs: LEASE_MS })),
    );
    const t1 = clock.now() + LEASE_MS / 2;
    clock.set(t1);
    const renewed = await worker1.store.heartbeat(claimed, parseLeaseDuration(LEASE_MS));
    clock.advance(LEASE_MS / 2);
    const newest = await worker1.store.heartbeat(renewed, parseLeaseDuration(LEASE_MS));

    // Act: the first renewal's request, built at t1 from the first lease, arrives again (the network's late copy).
    clock.set(t1);
    await worker1.store.heartbeat(claimed, parseLeaseDuration(LEASE_MS));

    // Assert: the row keeps the newest lease; the copy changed nothing
    expect(newest.leaseExpiresAt).toBeGreaterThan(renewed.leaseExpiresAt);
    expect(await worker1.store.get(identity)).toMatchObject({ fence: 1, leaseExpiresAt: newest.leaseExpiresAt });
    clock.advance(LEASE_MS / 2);
    await worker1.store.complete(newest, parseJobOutcome({ outcomeCode: 'ok' }));
  });
});
