import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.js';
import { parseIdentity, type ValidIdentity } from '../../lib/identity.js';
import { WorkState } from '../../lib/states.js';
import { parseLease, parseLeaseDuration } from '../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../lib/store/work-items/transitions.js';
import { createTestTables, type TestTables } from '../support/engine.js';
import { newWorkItem } from '../support/factories.js';
import { type StoreFixture, storeFixture } from '../support/store.js';
import { budget } from './support/chaos-mode.js';

/** 8 × 64 in `npm test`; the full 16 × 200 (about 7,000 requests) with `npm run test:chaos`. */
const WORKERS = budget.claimWorkers;
const ITEMS = budget.claimItems;
/** Far longer than the test can run on the ManualClock (which never moves): no lease expires, no takeover. */
const LEASE_MS = 10 * 60 * 1000;

interface ClaimRecord {
  worker: string;
  item: number;
  fence: number;
  attempt: number;
}

describe('concurrent claimers', () => {
  let tables: TestTables;
  const fixtures: StoreFixture[] = [];

  beforeAll(async () => {
    tables = await createTestTables('concurrency');
  });
  afterAll(async () => {
    for (const fixture of fixtures) fixture.client.destroy();
    await tables.drop();
  });

  it(
    `${WORKERS} workers on separate clients over ${ITEMS} items: distinct fences, never two holders, one success each`,
    async () => {
      // Prepare: ITEMS queued items; every third one fails retryably on its first attempt, so it is claimed twice.
      const clock = new ManualClock();
      const producer = storeFixture(tables.jobsTable, { clock });
      fixtures.push(producer);
      const identities: ValidIdentity[] = Array.from({ length: ITEMS }, (_, index) =>
        parseIdentity({ tenantId: `tenant-${index % 4}`, operationId: `op-${index}` }),
      );
      for (const identity of identities) {
        await producer.store.enqueue(newWorkItem(identity, { maxAttempts: 5 }));
      }
      const claims: ClaimRecord[] = [];
      const completes: Array<{ worker: string; item: number; fence: number }> = [];
      const holders = new Map<number, string>();
      const overlaps: string[] = [];

      const runWorker = async (worker: string) => {
        const fixture = storeFixture(tables.jobsTable, { clock });
        fixtures.push(fixture);
        const { store } = fixture;
        const finished = new Set<number>();
        const order = rotate(
          identities.map((_, index) => index),
          (Number(worker.split('-')[1]) * 37) % ITEMS,
        );
        while (finished.size < ITEMS) {
          for (const index of order) {
            if (finished.has(index)) continue;
            const identity = identities[index] as ValidIdentity;
            const result = await store.claim(identity, parseLease({ owner: worker, leaseMs: LEASE_MS }));
            if (!result.claimed) {
              if (result.reason === 'finished') finished.add(index);
              continue;
            }
            // Hold the item across a real round trip (a heartbeat) while every other worker keeps claiming:
            // a second grant of the same item would find the slot taken.
            const holder = holders.get(index);
            if (holder !== undefined) overlaps.push(`item ${index}: ${worker} claimed while ${holder} held it`);
            holders.set(index, worker);
            claims.push({ worker, item: index, fence: result.claim.fence, attempt: result.claim.attempt });
            const renewed = await store.heartbeat(result.claim, parseLeaseDuration(LEASE_MS));
            // Free the slot before the releasing write is sent: nobody can claim until that write commits.
            holders.delete(index);
            if (index % 3 === 0 && result.claim.attempt === 1) {
              await store.failRetryable(renewed, { errorCode: 'transient', retryDelayMs: 0 });
            } else {
              await store.complete(renewed, parseJobOutcome({ outcomeCode: 'ok', result: { by: worker } }));
              completes.push({ worker, item: index, fence: result.claim.fence });
              finished.add(index);
            }
          }
        }
      };

      // Act: all workers at once.
      await Promise.all(Array.from({ length: WORKERS }, (_, index) => runWorker(`worker-${index}`)));

      // Assert: no overlap, distinct fences per item, one complete per item, under the last fence.
      expect(overlaps).toEqual([]);
      const retried = identities.filter((_, index) => index % 3 === 0).length;
      expect(claims).toHaveLength(ITEMS + retried);
      for (let index = 0; index < ITEMS; index += 1) {
        const fences = claims.filter((claim) => claim.item === index).map((claim) => claim.fence);
        expect(new Set(fences).size, `fences of item ${index}`).toBe(fences.length);
        expect(fences.sort((a, b) => a - b)).toEqual(index % 3 === 0 ? [1, 2] : [1]);
      }
      expect(completes).toHaveLength(ITEMS);
      expect(new Set(completes.map((complete) => complete.item)).size).toBe(ITEMS);
      const items = await Promise.all(identities.map((identity) => producer.store.get(identity)));
      for (const [index, item] of items.entries()) {
        const completion = completes.find((complete) => complete.item === index);
        expect(item?.state).toBe(WorkState.succeeded);
        expect(item?.fence).toBe(completion?.fence);
        expect(item?.result).toEqual({ by: completion?.worker });
      }
      // Real contention: more than one worker won claims.
      expect(new Set(claims.map((claim) => claim.worker)).size).toBeGreaterThan(1);
    },
    budget.testTimeoutMs,
  );
});

/** The same list starting at `offset`, so workers sweep the items from different places and collide. */
function rotate<T>(values: T[], offset: number): T[] {
  return [...values.slice(offset), ...values.slice(0, offset)];
}
