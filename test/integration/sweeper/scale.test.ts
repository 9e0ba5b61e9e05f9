import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobIdentity } from '../../../lib/identity.js';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';
import { WorkState } from '../../../lib/states.js';
import { parkedStateKey } from '../../../lib/store/parked/parked-keys.js';
import { TENANT_BUCKETS, tenantBucketOf, tenantPartitionKeys, workItemKey } from '../../../lib/store/table.js';
import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { batchPutItems, readPartitions } from '../../support/bulk-write.js';
import { createTestQueue, createTestTables, type TestTables, testSqsClient } from '../../support/engine.js';
import { FACTORY_NOW, newIdentity, workItemInState } from '../../support/factories.js';
import { drainQueue } from '../../support/queue-reader.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const TENANTS = Array.from({ length: 10 }, (_, index) => `tenant-${index}`);
const HOUR = 3_600_000;
const SWEEP = { maxItemsPerRun: 1_000, dueGraceMs: 30_000, resignalIntervalMs: 120_000 } as const;

/** `count` rows spread over the tenants, built by `make` from a fresh identity. */
function rows(count: number, prefix: string, make: (identity: JobIdentity, index: number) => WorkItem): WorkItem[] {
  return Array.from({ length: count }, (_, index) => make(newIdentity(TENANTS[index % TENANTS.length], prefix), index));
}

/** Claimed rows whose lease expired a minute before `now`; `exhausted` ones have no attempts left. */
function expiredClaims(count: number, prefix: string, now: number, exhausted: boolean): WorkItem[] {
  return rows(count, prefix, (identity) =>
    workItemInState({
      identity,
      state: WorkState.claimed,
      now,
      overrides: {
        fence: 3,
        attempts: exhausted ? 3 : 1,
        maxAttempts: 3,
        leaseExpiresAt: now - 60_000,
        deadlineAt: now - 60_000,
      },
    }),
  );
}

/** Rows that need nothing from the sweeper: live leases, future retries, finished and parked items. */
function healthyRows(count: number, prefix: string, now: number): WorkItem[] {
  const live = { leaseExpiresAt: now + HOUR, deadlineAt: now + HOUR };
  const later = { availableAt: now + HOUR, deadlineAt: now + HOUR };
  const overrides: Partial<Record<WorkState, Partial<WorkItem>>> = { claimed: live, queued: later };
  const states = [
    WorkState.claimed,
    WorkState.queued,
    WorkState.succeeded,
    WorkState.failed_terminal,
    WorkState.cancelled,
  ];
  return rows(count, prefix, (identity, index) => {
    const state = states[index % states.length] ?? WorkState.succeeded;
    return workItemInState({ identity, state, now, overrides: overrides[state] ?? {} });
  });
}

/**
 * Unknown rows parked at `parkedAt`, one in each shard of the parked index: the sweeper's oldest-unknown probe then
 * reads one item per shard on every run, however many more items park (so runs compare item for item).
 */
function unknownInEveryShard(parkedAt: number): WorkItem[] {
  const byShard = new Map<number, WorkItem>();
  for (let index = 0; byShard.size < TENANT_BUCKETS; index += 1) {
    const identity = newIdentity(TENANTS[index % TENANTS.length], 'old-unknown');
    const shard = tenantBucketOf(identity);
    if (!byShard.has(shard)) byShard.set(shard, workItemInState({ identity, state: WorkState.unknown, now: parkedAt }));
  }
  return [...byShard.values()];
}

const keyOf = (item: { pk: unknown; sk: unknown }) => `${item.pk}|${item.sk}`;

describe('sweeper at scale: cost follows expired items, not table size', () => {
  let tables: TestTables;
  let sqs: SQSClient;
  let queueUrl: string;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('sweep-scale');
    sqs = testSqsClient();
    ({ queueUrl } = await createTestQueue(sqs, 'sweep-scale'));
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    await tables.drop();
    sqs.destroy();
  });

  it('parks 20 exhausted, re-signals 30, touches nothing else, and reads the same with 10,000 more healthy items', async () => {
    // Prepare: 1,000 rows, 50 of them with an expired lease (20 exhausted), 16 long-parked unknown items.
    const { store, clock, client, counter } = fixture;
    clock.set(FACTORY_NOW);
    const now = clock.now();
    const exhausted = expiredClaims(20, 'exhausted', now, true);
    const retryable = expiredClaims(30, 'retryable', now, false);
    const parkedLongAgo = unknownInEveryShard(now - HOUR);
    const healthy = healthyRows(1_000 - 50 - parkedLongAgo.length, 'healthy', now);
    await batchPutItems(client, tables.jobsTable, [...exhausted, ...retryable, ...parkedLongAgo, ...healthy]);
    const before = await readPartitions(client, tables.jobsTable, TENANTS.flatMap(tenantPartitionKeys));
    expect(before.size).toBe(1_000);

    // Act
    counter.reset();
    const first = await sweep({ store, sqs, queueUrl, clock, ...SWEEP });
    const firstQueries = counter.byCommand.QueryCommand ?? 0;
    const firstReads = counter.reads();

    // Assert: exactly the expired rows were handled, each once.
    expect(first).toMatchObject({ scanned: 50, sweptToUnknown: 20, resignalled: 30, lostRaces: 0, skipped: 0 });
    expect(first.cursor).toBeUndefined();
    expect(first.oldestUnknownAgeSeconds).toBe(3_600);
    const messages = await drainQueue(sqs, queueUrl);
    expect(messages).toHaveLength(30);
    const woken = messages.map((message) => {
      const parsed = parseEnvelope(message.body);
      if (!parsed.ok) throw new Error(parsed.detail);
      expect(parsed.envelope.kind).toBe('wake');
      return keyOf(workItemKey(parsed.envelope));
    });
    expect(new Set(woken)).toEqual(new Set(retryable.map(keyOf)));

    const after = await readPartitions(client, tables.jobsTable, TENANTS.flatMap(tenantPartitionKeys));
    for (const item of exhausted) {
      const swept = after.get(keyOf(item));
      const parkedState = parkedStateKey(WorkState.unknown, tenantBucketOf(item));
      expect(swept).toMatchObject({ state: WorkState.unknown, fence: 4, parkedState });
      expect(swept?.deadlineAt).toBeUndefined();
      expect(swept?.leaseExpiresAt).toBeUndefined();
    }
    for (const item of retryable) {
      const { deadlineAt, resignalledAt, ...rest } = after.get(keyOf(item)) ?? {};
      expect(rest).toEqual(omit(item, 'deadlineAt'));
      expect(deadlineAt).toBe(now + SWEEP.resignalIntervalMs);
      expect(resignalledAt).toBe(now);
    }
    const handled = new Set([...exhausted, ...retryable].map(keyOf));
    for (const [key, item] of before) {
      if (!handled.has(key)) expect(after.get(key), key).toEqual(item);
    }

    // Prepare again: 10,000 more healthy rows and a fresh set of 50 expired (20 exhausted).
    clock.advance(1_000);
    const later = clock.now();
    const moreHealthy = healthyRows(10_000, 'bulk', later);
    const exhausted2 = expiredClaims(20, 'exhausted-2', later, true);
    const retryable2 = expiredClaims(30, 'retryable-2', later, false);
    await batchPutItems(client, tables.jobsTable, [...moreHealthy, ...exhausted2, ...retryable2]);

    // Act
    counter.reset();
    const second = await sweep({ store, sqs, queueUrl, clock, ...SWEEP });

    // Assert: identical read cost at 11,000+ rows.
    expect(second).toMatchObject({ scanned: 50, sweptToUnknown: 20, resignalled: 30, lostRaces: 0, skipped: 0 });
    expect(second.readRequests).toBe(first.readRequests);
    expect(second.itemsRead).toBe(first.itemsRead);
    expect(counter.byCommand.QueryCommand ?? 0).toBe(firstQueries);
    expect(counter.reads()).toBe(firstReads);
    expect(await drainQueue(sqs, queueUrl)).toHaveLength(30);
    console.log(
      `[sweeper scale] 1,000 rows: ${first.readRequests} Query requests, ${first.itemsRead} items read, ${first.readCapacityUnits} RCU; ` +
        `11,050 rows: ${second.readRequests} Query requests, ${second.itemsRead} items read, ${second.readCapacityUnits} RCU`,
    );
  });
});

function omit<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const { [key]: _dropped, ...rest } = value;
  return rest;
}
