import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import type { SlotLimit } from '../../../lib/flow-control/concurrency-limits.js';
import type { SlotStore } from '../../../lib/store/flow-control/slots.js';
import { claimFixture } from '../../support/claim-fixture.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

/** A claim of its own job (operation `op`), with its own claim id. */
function holder(op: string) {
  return claimFixture({ tenantId: 'acme', operationId: op, claimId: `claim-${op}`, jobType: 'sync' });
}

const oneAtATime: SlotLimit[] = [{ scope: { kind: 'key', tenantId: 'acme', key: 'account-1' }, limit: 1 }];

describe('concurrency slots on the engine: every decision is the conditional write', () => {
  let tables: TestTables;
  let fixture: StoreFixture;
  let slots: SlotStore;
  beforeAll(async () => {
    tables = await createTestTables('slots');
    fixture = storeFixture(tables.jobsTable, { clock: new ManualClock(1_000_000) });
    slots = await fixture.store.slots();
  });
  afterAll(async () => {
    await tables.drop();
  });

  it('a renewed slot outlives its first lease; once the renewal lapses it is re-granted, counted, and the old holder can neither renew nor free it', async () => {
    const first = holder('first');
    const second = holder('second');
    const start = fixture.clock.now();
    const held = await slots.acquire(first, oneAtATime, start + 30_000);
    expect(held).toMatchObject({ granted: true, held: [{ regranted: false }] });
    expect(await slots.acquire(second, oneAtATime, start + 30_000)).toMatchObject({ granted: false });

    expect(held.granted && (await slots.renew(held.held, first, start + 90_000))).toBe(true);
    fixture.clock.advance(60_000); // past the first lease, inside the renewed one
    expect(await slots.acquire(second, oneAtATime, fixture.clock.now() + 30_000)).toMatchObject({ granted: false });

    fixture.clock.advance(31_000); // past the renewed lease: the holder is presumed gone
    const taken = await slots.acquire(second, oneAtATime, fixture.clock.now() + 30_000);
    expect(taken).toMatchObject({ granted: true, held: [{ regranted: true }] });
    expect(held.granted && (await slots.renew(held.held, first, fixture.clock.now() + 30_000))).toBe(false);
    if (held.granted) await slots.release(held.held, first.claimId);
    const partition = slots.partitionOf('sync', oneAtATime[0]?.scope ?? { kind: 'type' });
    expect(await slots.usage(partition)).toMatchObject({ inUse: 1, expired: 0, limit: 1 });
    if (taken.granted) await slots.release(taken.held, second.claimId);
    expect(await slots.usage(partition)).toMatchObject({ inUse: 0 });
  });

  it('twelve claims racing for a limit of 3 at once: exactly 3 hold a slot', async () => {
    const limits: SlotLimit[] = [{ scope: { kind: 'type' }, limit: 3 }];
    const claims = Array.from({ length: 12 }, (_, index) => holder(`racer-${index}`));
    const until = fixture.clock.now() + 30_000;

    const grants = await Promise.all(claims.map((claim) => slots.acquire(claim, limits, until)));

    expect(grants.filter((grant) => grant.granted)).toHaveLength(3);
    expect(await slots.usage(slots.partitionOf('sync', { kind: 'type' }))).toMatchObject({ inUse: 3 });
  });

  it('a job over its second limit holds nothing: the first limit slot it took is released again', async () => {
    const limits: SlotLimit[] = [
      { scope: { kind: 'tenant', tenantId: 'acme' }, limit: 5 },
      { scope: { kind: 'key', tenantId: 'acme', key: 'busy' }, limit: 1 },
    ];
    const until = fixture.clock.now() + 30_000;
    expect(await slots.acquire(holder('busy-holder'), limits.slice(1), until)).toMatchObject({ granted: true });

    const refused = await slots.acquire(holder('busy-waiter'), limits, until);

    expect(refused).toMatchObject({ granted: false, full: { limit: 1 } });
    expect(await slots.usage(slots.partitionOf('sync', { kind: 'tenant', tenantId: 'acme' }))).toMatchObject({
      inUse: 0,
    });
  });
});
