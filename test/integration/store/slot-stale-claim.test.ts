import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import type { SlotLimit } from '../../../lib/flow-control/concurrency-limits.js';
import type { SlotStore } from '../../../lib/store/flow-control/slots.js';
import { claimFixture } from '../../support/claim-fixture.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

/*
 * Found by the protocol model (model/check one slot-stale-retake, docs/PROTOCOL.md "Flow control"): a slot is taken
 * by the same job's claim whatever that claim's fence, so a superseded claim that reaches its slot gate late takes
 * the slot from the current claim, frees it at its end, and another job runs beside the current claim.
 */

const limits: SlotLimit[] = [{ scope: { kind: 'key', tenantId: 'acme', key: 'account-stale' }, limit: 1 }];

function claimOf(operationId: string, claimId: string, fence: number) {
  return claimFixture({ tenantId: 'acme', operationId, claimId, fence, jobType: 'sync' });
}

describe('a concurrency slot and the claims of one job', () => {
  let tables: TestTables;
  let fixture: StoreFixture;
  let slots: SlotStore;
  beforeAll(async () => {
    tables = await createTestTables('slot-stale');
    fixture = storeFixture(tables.jobsTable, { clock: new ManualClock(1_000_000) });
    slots = (await fixture.store.flow()).slots;
  });
  afterAll(async () => {
    await tables.drop();
  });

  it('a superseded claim that reaches its slot late does not take the slot from the current claim', async () => {
    // The row's lease lapsed and a newer claim (fence 5) took the job and its slot; the older claim (fence 4),
    // stalled between its claim and its slot gate, now asks for the slot.
    const older = claimOf('retaken', 'claim-old', 4);
    const current = claimOf('retaken', 'claim-new', 5);
    const until = fixture.clock.now() + 30_000;
    const held = await slots.acquire(current, limits, until);
    expect(held).toMatchObject({ granted: true });

    const stale = await slots.acquire(older, limits, until);
    if (stale.granted) await slots.release(stale.held, older.claimId);

    expect(stale).toMatchObject({ granted: false });
    expect(held.granted && (await slots.renew(held.held, current, until + 30_000))).toBe(true);
    expect(await slots.acquire(claimOf('beside', 'claim-beside', 1), limits, until)).toMatchObject({ granted: false });
  });

  it('a newer claim of the same job re-takes the slot its earlier claim still holds (a takeover)', async () => {
    const earlier = claimOf('takeover', 'claim-1', 7);
    const later = claimOf('takeover', 'claim-2', 8);
    const until = fixture.clock.now() + 30_000;
    const k2: SlotLimit[] = [{ scope: { kind: 'key', tenantId: 'acme', key: 'account-takeover' }, limit: 1 }];
    expect(await slots.acquire(earlier, k2, until)).toMatchObject({ granted: true });
    expect(await slots.acquire(later, k2, until)).toMatchObject({ granted: true, held: [{ regranted: false }] });
  });
});
