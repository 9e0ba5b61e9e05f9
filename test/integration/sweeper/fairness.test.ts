import { describe, expect, it } from 'vitest';
import type { JobIdentity } from '../../../lib/identity.js';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';
import { WorkState } from '../../../lib/states.js';
import { DEFAULT_DEADLINE_SHARDS, deadlineShardFor } from '../../../lib/store/table.js';
import { loadSweepCursor, saveSweepCursor, sweepFromStoredCursor } from '../../../lib/sweeper/cursor.js';
import { newIdentity, putWorkItem } from '../../support/factories.js';
import { drainQueue } from '../../support/queue-reader.js';
import { useSweepEnvironment } from '../../support/sweep-environment.js';

const SHARDS = DEFAULT_DEADLINE_SHARDS;

/** Shard number of an identity (as the store writes it). */
function shardOf(identity: JobIdentity): number {
  return Number(deadlineShardFor(identity, SHARDS).split('#')[1]);
}

describe('sweeper: no shard starves, across cold starts (cursor stored in the jobs table)', () => {
  const env = useSweepEnvironment('sweep-fair');

  /** Seeds `perShard` expired claims in each listed shard (identities drawn until every shard is full). */
  async function backlog(perShard: number, shards: readonly number[] = [...Array(SHARDS).keys()]): Promise<void> {
    const wanted = new Map(shards.map((shard) => [shard, perShard]));
    const identities: JobIdentity[] = [];
    while ([...wanted.values()].some((left) => left > 0)) {
      const identity = newIdentity('tenant-fair');
      const left = wanted.get(shardOf(identity)) ?? 0;
      if (left === 0) continue;
      wanted.set(shardOf(identity), left - 1);
      identities.push(identity);
    }
    const now = env.clock.now();
    await Promise.all(
      identities.map((identity) =>
        putWorkItem(env.fixture.client, env.tables.jobsTable, {
          identity,
          state: WorkState.claimed,
          now,
          overrides: { attempts: 1, leaseExpiresAt: now - 1_000, deadlineAt: now - 1_000 },
        }),
      ),
    );
  }

  /** One run as a fresh container would do it (nothing in memory); returns the shards it re-signalled. */
  async function coldRun(maxItemsPerRun: number): Promise<Set<number>> {
    const summary = await sweepFromStoredCursor({
      store: env.fixture.store,
      sqs: env.sqs,
      queueUrl: env.queueUrl,
      maxItemsPerRun,
    });
    expect(summary.cursorStored).toBe(true);
    expect(summary.scanned).toBeLessThanOrEqual(maxItemsPerRun);
    const woken = (await drainQueue(env.sqs, env.queueUrl)).map((message) => {
      const parsed = parseEnvelope(message.body);
      if (!parsed.ok) throw new Error(parsed.detail);
      return shardOf(parsed.envelope);
    });
    return new Set(woken);
  }

  it('with a budget of at least one per shard, every shard is served in every run, even beside a hot shard', async () => {
    // Prepare: more than five runs' share (2 per shard per run) in every shard.
    await backlog(11);

    // Act: 5 cold runs; after each, shard 0 gets another run's worth of new due items (it never drains).
    const served: Array<Set<number>> = [];
    const budget = SHARDS * 2; // at least one per shard, whatever the default shard count
    for (let run = 0; run < 5; run += 1) {
      served.push(await coldRun(budget));
      await backlog(budget, [0]);
    }

    // Assert: no shard waited a single run.
    for (const [run, shards] of served.entries())
      expect(
        [...shards].sort((a, b) => a - b),
        `run ${run}`,
      ).toEqual([...Array(SHARDS).keys()]);
  });

  it('with a budget below the shard count, every shard is served within ceil(shards / budget) runs', async () => {
    // Prepare: every shard holds more than a run's limit (3).
    await backlog(6);
    const bound = Math.ceil(SHARDS / 3);

    // Act: 3 x bound cold runs.
    const served: Array<Set<number>> = [];
    for (let run = 0; run < 3 * bound; run += 1) served.push(await coldRun(3));

    // Assert: count the runs each shard waited between two services.
    const waits = [...Array(SHARDS).keys()].map((shard) => {
      const runs = served.flatMap((shards, run) => (shards.has(shard) ? [run] : []));
      const gaps = runs.map((run, index) => run - (index === 0 ? -1 : (runs[index - 1] ?? 0)));
      return Math.max(...gaps);
    });
    for (const [shard, wait] of waits.entries()) expect(wait, `shard ${shard}`).toBeLessThanOrEqual(bound);
  });

  it('a backlog concentrated in one shard still gets the whole budget of a run', async () => {
    // Prepare
    await backlog(40, [5]);

    // Act
    const summary = await sweepFromStoredCursor({
      store: env.fixture.store,
      sqs: env.sqs,
      queueUrl: env.queueUrl,
      maxItemsPerRun: 16,
    });

    // Assert
    expect(summary).toMatchObject({ scanned: 16, resignalled: 16 });
    expect(summary.cursor).toBeDefined();
  });

  it('stores the cursor conditionally: a run that read an older version does not overwrite a newer one', async () => {
    // Prepare
    const first = await loadSweepCursor(env.fixture.store);
    expect(first).toEqual({ cursor: undefined, version: 0 });
    expect(await saveSweepCursor(env.fixture.store, first.version, { shard: 3 })).toBe(true);

    // Act: a second writer still holding version 0.
    const stale = await saveSweepCursor(env.fixture.store, first.version, { shard: 6 });

    // Assert
    expect(stale).toBe(false);
    expect(await loadSweepCursor(env.fixture.store)).toEqual({ cursor: { shard: 3 }, version: 1 });
  });
});
