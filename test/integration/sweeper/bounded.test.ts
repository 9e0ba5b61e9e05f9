import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { formatIdentity, type ValidIdentity } from '../../../lib/identity.js';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';
import { WorkState } from '../../../lib/states.js';
import { type SweepCursor, type SweepSummary, sweep } from '../../../lib/sweeper/sweeper.js';
import { expectState } from '../../support/expectations.js';
import { newIdentity, putWorkItem } from '../../support/factories.js';
import { drainQueue } from '../../support/queue-reader.js';
import { useSweepEnvironment } from '../../support/sweep-environment.js';

const GRACE = 30_000;
const INTERVAL = 120_000;

/** Identities named by the wake-up messages on the queue (drained). */
async function wokenIdentities(sqs: SQSClient, queueUrl: string): Promise<string[]> {
  return (await drainQueue(sqs, queueUrl)).map((message) => {
    const parsed = parseEnvelope(message.body);
    if (!parsed.ok) throw new Error(parsed.detail);
    return formatIdentity(parsed.envelope);
  });
}

describe('sweeper: bounded runs, continuation, dedup of re-signals, due retries', () => {
  const env = useSweepEnvironment('sweep-bounded');

  async function putExpired(count: number): Promise<ValidIdentity[]> {
    const now = env.clock.now();
    const identities = Array.from({ length: count }, () => newIdentity('tenant-bounded'));
    await Promise.all(
      identities.map((identity, index) =>
        putWorkItem(env.fixture.client, env.tables.jobsTable, {
          identity,
          state: WorkState.claimed,
          now,
          overrides: { attempts: 1, leaseExpiresAt: now - 1_000 - index, deadlineAt: now - 1_000 - index },
        }),
      ),
    );
    return identities;
  }

  it('reads at most maxItemsPerRun per run and continues from the cursor until every item was handled once', async () => {
    // Prepare
    const identities = await putExpired(40);
    const runs: SweepSummary[] = [];
    let cursor: SweepCursor | undefined;

    // Act: runs of 15 until a run reports no continuation.
    do {
      const summary = await sweep({
        store: env.fixture.store,
        sqs: env.sqs,
        queueUrl: env.queueUrl,
        maxItemsPerRun: 15,
        ...(cursor ? { cursor } : {}),
      });
      runs.push(summary);
      cursor = summary.cursor;
    } while (cursor && runs.length < 10);

    // Assert
    expect(runs.map((run) => run.scanned)).toEqual([15, 15, 10]);
    for (const run of runs) expect(run.itemsRead).toBeLessThanOrEqual(15 + 1);
    expect(runs.slice(0, 2).every((run) => run.cursor !== undefined)).toBe(true);
    const woken = await wokenIdentities(env.sqs, env.queueUrl);
    expect(woken.sort()).toEqual(identities.map(formatIdentity).sort());
  });

  it('a dropped cursor loses nothing: handled items left the swept range, the rest is found again', async () => {
    // Prepare
    const identities = await putExpired(12);
    await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl, maxItemsPerRun: 5 });

    // Act: no cursor passed.
    const second = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl, maxItemsPerRun: 100 });

    // Assert
    expect(second).toMatchObject({ scanned: 7, resignalled: 7, cursor: undefined });
    expect((await wokenIdentities(env.sqs, env.queueUrl)).sort()).toEqual(identities.map(formatIdentity).sort());
  });

  it('re-signals an item at most once per interval while its wake-up is in flight', async () => {
    // Prepare
    const [identity] = (await putExpired(1)) as [ValidIdentity];
    const first = await sweep({
      store: env.fixture.store,
      sqs: env.sqs,
      queueUrl: env.queueUrl,
      resignalIntervalMs: INTERVAL,
    });

    // Act: again at once, then again just before and just after the interval.
    const again = await sweep({
      store: env.fixture.store,
      sqs: env.sqs,
      queueUrl: env.queueUrl,
      resignalIntervalMs: INTERVAL,
    });
    env.clock.advance(INTERVAL - 1);
    const beforeInterval = await sweep({
      store: env.fixture.store,
      sqs: env.sqs,
      queueUrl: env.queueUrl,
      resignalIntervalMs: INTERVAL,
    });
    env.clock.advance(2);
    const afterInterval = await sweep({
      store: env.fixture.store,
      sqs: env.sqs,
      queueUrl: env.queueUrl,
      resignalIntervalMs: INTERVAL,
    });

    // Assert
    expect([first, again, beforeInterval, afterInterval].map((run) => run.resignalled)).toEqual([1, 0, 0, 1]);
    expect(again.scanned).toBe(0);
    expect(await wokenIdentities(env.sqs, env.queueUrl)).toEqual([formatIdentity(identity), formatIdentity(identity)]);
    const item = await expectState(env.fixture.store, identity, WorkState.claimed);
    expect(item.fence).toBe(1);
  });

  it('re-signals queued items overdue by more than the grace period and leaves the others untouched', async () => {
    // Prepare: a lost wake-up (overdue), a wake-up still in its grace period, a retry due later.
    const now = env.clock.now();
    const overdue = newIdentity('tenant-queued');
    const inGrace = newIdentity('tenant-queued');
    const future = newIdentity('tenant-queued');
    const seed = (identity: ValidIdentity, availableAt: number) =>
      putWorkItem(env.fixture.client, env.tables.jobsTable, {
        identity,
        state: WorkState.queued,
        now,
        overrides: { availableAt, deadlineAt: availableAt },
      });
    await seed(overdue, now - GRACE - 1);
    const graceRow = await seed(inGrace, now - GRACE + 1);
    const futureRow = await seed(future, now + 60_000);

    // Act
    const summary = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl, dueGraceMs: GRACE });

    // Assert
    expect(summary).toMatchObject({ scanned: 2, resignalled: 1, skipped: 1, sweptToUnknown: 0 });
    expect(await wokenIdentities(env.sqs, env.queueUrl)).toEqual([formatIdentity(overdue)]);
    expect(await env.fixture.store.get(inGrace)).toEqual(graceRow);
    expect(await env.fixture.store.get(future)).toEqual(futureRow);
    const moved = await expectState(env.fixture.store, overdue, WorkState.queued);
    expect(moved).toMatchObject({ availableAt: now - GRACE - 1, deadlineAt: now + 120_000 });
  });

  it('reports the age of the oldest unknown item, 0 when there is none', async () => {
    // Prepare
    const empty = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl });
    const now = env.clock.now();
    await putWorkItem(env.fixture.client, env.tables.jobsTable, {
      identity: newIdentity('tenant-u'),
      state: WorkState.unknown,
      now: now - 90_000,
    });
    await putWorkItem(env.fixture.client, env.tables.jobsTable, {
      identity: newIdentity('tenant-u'),
      state: WorkState.unknown,
      now: now - 10_000,
    });

    // Act
    const summary = await sweep({ store: env.fixture.store, sqs: env.sqs, queueUrl: env.queueUrl });

    // Assert
    expect(empty.oldestUnknownAgeSeconds).toBe(0);
    expect(summary.oldestUnknownAgeSeconds).toBe(90);
  });
});
