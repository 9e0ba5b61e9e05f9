import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { sendGet } from '../../../lib/store/driver/plain-requests.js';
import { budgetKey } from '../../../lib/store/flow-control/budget-requests.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';

/** The most grants any window [t, t + windowMs) holds, t ranging over the grants themselves. */
function busiestWindow(grants: readonly number[], windowMs: number): number {
  const sorted = [...grants].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + windowMs) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/**
 * Several takers (each its own store and client, as separate workers) race for one budget on the real engine while
 * the test moves the shared clock in uneven steps; every grant is recorded at the clock value its write carried.
 */
async function race(tables: TestTables, rate: { limit: number; intervalMs: number; burst: number }, provider: string) {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const clients = Array.from({ length: 4 }, () => testDocumentClient());
  const stores = clients.map((client) => new WorkItemStore({ client, tableName: tables.jobsTable, clock }));
  const ref = { provider, scope: 'shared' };
  const grants: number[] = [];
  let denials = 0;
  const steps = [37, 113, 5, 250, 61, 0, 199, 83];
  for (let round = 0; round < 32; round += 1) {
    const verdicts = await Promise.all(
      stores.flatMap((store) => [store.takeToken(ref, rate), store.takeToken(ref, rate)]),
    );
    for (const verdict of verdicts) {
      if (verdict.granted) grants.push(verdict.at);
      else {
        denials += 1;
        expect(verdict.retryAfterMs).toBeGreaterThan(0);
      }
    }
    clock.advance(steps[round % steps.length] as number);
  }
  for (const client of clients) client.destroy();
  return { grants, denials, elapsedMs: clock.now() - Date.UTC(2026, 5, 1) };
}

describe('provider budgets: a token bucket shared by every worker, one conditional write per decision', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await createTestTables('budgets');
  });
  afterAll(async () => {
    await tables.drop();
  });

  it('burst 1: no window of intervalMs ever holds more than limit grants, under 8 concurrent takers', async () => {
    const rate = { limit: 5, intervalMs: 1_000, burst: 1 };
    const { grants, denials, elapsedMs } = await race(tables, rate, 'acme-api');
    expect(busiestWindow(grants, rate.intervalMs)).toBeLessThanOrEqual(rate.limit);
    expect(denials).toBeGreaterThan(0);
    // Not starved either: the budget is used, not merely respected (one grant per 200 ms of clock, less the steps of 0).
    expect(grants.length).toBeGreaterThanOrEqual(Math.floor((elapsedMs / rate.intervalMs) * rate.limit * 0.6));
    expect(grants.length).toBeLessThanOrEqual(Math.ceil((elapsedMs / rate.intervalMs) * rate.limit) + 1);
  });

  it('burst B: a window of intervalMs holds at most limit + B - 1 grants', async () => {
    const rate = { limit: 4, intervalMs: 1_000, burst: 3 };
    const { grants } = await race(tables, rate, 'bursty-api');
    const busiest = busiestWindow(grants, rate.intervalMs);
    expect(busiest).toBeLessThanOrEqual(rate.limit + rate.burst - 1);
    expect(busiest).toBeGreaterThan(rate.limit - 1);
  });

  it('scopes are separate budgets, and the stored row names no scope value (hashed)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 2));
    const client = testDocumentClient();
    const store = new WorkItemStore({ client, tableName: tables.jobsTable, clock });
    const rate = { limit: 1, intervalMs: 60_000, burst: 1 };
    const acme = { provider: 'mail', scope: 'tenant:acme' };
    const globex = { provider: 'mail', scope: 'tenant:globex' };
    expect((await store.takeToken(acme, rate)).granted).toBe(true);
    expect(await store.takeToken(acme, rate)).toEqual({ granted: false, retryAfterMs: 60_000 });
    expect((await store.takeToken(globex, rate)).granted).toBe(true);
    const row = (await sendGet(client, { TableName: tables.jobsTable, Key: budgetKey(acme), ConsistentRead: true }))
      .Item;
    expect(row).toMatchObject({ kind: 'budget', provider: 'mail', limit: 1, intervalMs: 60_000 });
    expect(JSON.stringify(row)).not.toContain('acme');
    clock.advance(60_000);
    expect((await store.takeToken(acme, rate)).granted).toBe(true);
    client.destroy();
  });
});
