import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { WorkState } from '../../../lib/states.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { parseLease, parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import { claimFromItem } from '../../../lib/store/work-items/work-item.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { expectClaimed, expectState } from '../../support/expectations.js';
import { newIdentity, putWorkItem } from '../../support/factories.js';
import { afterNextQuery } from '../../support/interleave.js';
import { dropNextResponse } from '../../support/lost-response.js';
import { drainQueue } from '../../support/queue-reader.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';
import { useSweepEnvironment } from '../../support/sweep-environment.js';

/** Fresh tables and queue per test: the sweeper reads the whole index, so tests must not see each other's rows. */
describe('sweeper never overrides a fresher claim', () => {
  const env = useSweepEnvironment('sweep-race');
  let other: StoreFixture;
  beforeEach(() => {
    other = storeFixture(env.tables.jobsTable, { clock: env.clock });
  });

  it('a claim between the index read and the re-signal wins: lostRaces 1, the fresh claim intact, no message', async () => {
    // Prepare: a claim with attempts left whose lease expired.
    const identity = newIdentity('tenant-race');
    const now = env.clock.now();
    await putWorkItem(env.fixture.client, env.tables.jobsTable, {
      identity,
      state: WorkState.claimed,
      now,
      overrides: { fence: 1, attempts: 1, leaseExpiresAt: now - 1_000, deadlineAt: now - 1_000 },
    });
    let freshFence = 0;
    const race = afterNextQuery(env.fixture.client, async () => {
      freshFence = expectClaimed(
        await other.store.claim(identity, parseLease({ owner: 'fresh-worker', leaseMs: 60_000 })),
      ).fence;
    });

    // Act
    const summary = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl });

    // Assert
    expect(race.fired()).toBe(true);
    expect(summary).toMatchObject({ scanned: 1, resignalled: 0, sweptToUnknown: 0, lostRaces: 1 });
    const item = await expectState(env.fixture.store, identity, WorkState.claimed);
    expect(item).toMatchObject({ fence: 2, attempts: 2, leaseOwner: 'fresh-worker', deadlineAt: now + 60_000 });
    expect(freshFence).toBe(2);
    expect((item as unknown as Record<string, unknown>).resignalledAt).toBeUndefined();
    expect(await drainQueue(env.sqs, env.queueUrl)).toHaveLength(0);
  });

  it('a renewed lease between the index read and the sweep to unknown wins: the item stays claimed, its deadline moves to the lease', async () => {
    // Prepare: an exhausted claim whose lease expired by the sweeper's clock; the holder's clock runs 2 s
    // behind, so on its clock the lease is still valid and its renewal is accepted (a renewal of a lease
    // already expired on the renewing worker's clock is refused: test/integration/worker/lease-doubt.test.ts).
    const identity = newIdentity('tenant-race');
    const now = env.clock.now();
    const holder = new OperatorStore({
      client: other.client,
      tableName: env.tables.jobsTable,
      clock: { now: () => env.clock.now() - 2_000 },
    });
    const stored = await putWorkItem(env.fixture.client, env.tables.jobsTable, {
      identity,
      state: WorkState.claimed,
      now,
      overrides: { fence: 3, attempts: 3, maxAttempts: 3, leaseExpiresAt: now - 1_000, deadlineAt: now - 1_000 },
    });
    afterNextQuery(env.fixture.client, async () => {
      await holder.heartbeat(claimFromItem(stored, identity, false), parseLeaseDuration(30_000));
    });

    // Act
    const summary = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl });

    // Assert
    expect(summary).toMatchObject({ scanned: 1, sweptToUnknown: 0, lostRaces: 0, deadlinesAdvanced: 1 });
    const item = await expectState(env.fixture.store, identity, WorkState.claimed);
    // Heartbeats never write the index; the sweeper moved the index deadline up to the real lease instead.
    const renewed = now - 2_000 + 30_000;
    expect(item).toMatchObject({ fence: 3, leaseExpiresAt: renewed, deadlineAt: renewed });
    expect(await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl })).toMatchObject({
      scanned: 0,
    });
  });

  it('two sweepers racing on one exhausted item park it once: fence + 1, not + 2', async () => {
    // Prepare
    const identity = newIdentity('tenant-race');
    const now = env.clock.now();
    await putWorkItem(env.fixture.client, env.tables.jobsTable, {
      identity,
      state: WorkState.claimed,
      now,
      overrides: { fence: 3, attempts: 3, maxAttempts: 3, leaseExpiresAt: now - 1_000, deadlineAt: now - 1_000 },
    });
    // A second sweeper process has its own clock; 1 ms apart, so the store can tell its write from ours
    // (the store recognises its own lost response by target state, fence + 1 and its own timestamp).
    const secondSweeper = storeFixture(env.tables.jobsTable, { clock: new ManualClock(now + 1) });
    let inner: Awaited<ReturnType<typeof sweep>> | undefined;
    afterNextQuery(env.fixture.client, async () => {
      inner = await sweep({ store: secondSweeper.store, sqs: env.sqs, queueUrl: env.queueUrl });
    });

    // Act
    const outer = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl });

    // Assert
    expect(inner).toMatchObject({ sweptToUnknown: 1, lostRaces: 0 });
    expect(outer).toMatchObject({ sweptToUnknown: 0, lostRaces: 1 });
    const item = await expectState(env.fixture.store, identity, WorkState.unknown);
    expect(item.fence).toBe(4);
  });

  it('a re-signal whose response was lost and retried by the SDK is recognised as ours: the wake-up still goes out', async () => {
    // Prepare
    const identity = newIdentity('tenant-race');
    const now = env.clock.now();
    await putWorkItem(env.fixture.client, env.tables.jobsTable, {
      identity,
      state: WorkState.claimed,
      now,
      overrides: { fence: 1, attempts: 1, leaseExpiresAt: now - 1_000, deadlineAt: now - 1_000 },
    });
    const drop = dropNextResponse(env.fixture.client, 'UpdateCommand');

    // Act
    const summary = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl });

    // Assert
    expect(drop.dropped()).toBe(1);
    expect(summary).toMatchObject({ resignalled: 1, lostRaces: 0 });
    expect(await drainQueue(env.sqs, env.queueUrl)).toHaveLength(1);
  });
});
