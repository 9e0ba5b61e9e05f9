import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countItems, type StateCount } from '../../../lib/admin/counts.js';
import { listItems, listParked } from '../../../lib/admin/list.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { type JobIdentity, parseIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import { parkedStateKeys, parkedTenantStateKeys } from '../../../lib/store/parked/parked-keys.js';
import { workItemKey } from '../../../lib/store/table.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { eventually, expectCreatedClaim, expectRejection } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { queryParkedByState } from '../../support/store.js';

/** The tenant whose mass parking must spread over its own keys, and the others parking beside it. */
const MASS = 'tenant-mass';
const OTHERS = ['tenant-b', 'tenant-c', 'tenant-d'];
const MASS_COUNT = 48;
const OTHER_COUNT = 8;

/** One parked job as the test knows it: identity, when it parked, and its table key (the merge's tie-break). */
interface Parked {
  identity: JobIdentity;
  parkedAt: number;
  sortKey: string;
}

const byListingOrder = (a: Parked, b: Parked) =>
  a.parkedAt - b.parkedAt || (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0);

describe('sharded parked indexes on the real engine: mass parking spreads, readers merge every shard', () => {
  let admin: AdminFixture;
  const parked: Parked[] = [];

  beforeAll(async () => {
    admin = await createAdminFixture('parked-shards');
    // Through the store's own transitions (claim, then park unknown), interleaving tenants; three jobs share
    // each parkedAt, so the order across shards needs its tie-break. The very first job parks alone: the oldest.
    const total = MASS_COUNT + OTHERS.length * OTHER_COUNT;
    const tenants = Array.from({ length: total }, (_, index) =>
      index % 3 === 2 ? (OTHERS[Math.floor(index / 3) % OTHERS.length] as string) : MASS,
    );
    for (const [index, tenantId] of tenants.entries()) {
      if (index % 3 === 1) admin.clock.advance(1_000);
      const identity = newIdentity(tenantId);
      const claim = expectCreatedClaim(
        await admin.store.enqueue(newWorkItem(identity), parseLease({ owner: 'worker', leaseMs: 60_000 })),
      );
      await admin.store.parkUnknown(claim, { errorCode: 'provider_outage' });
      const key = workItemKey(identity);
      parked.push({ identity, parkedAt: admin.clock.now(), sortKey: `${key.pk}\u0000${key.sk}` });
    }
    await eventually(
      () => queryParkedByState(admin.client, admin.tables.jobsTable, WorkState.unknown),
      (items) => items.length === parked.length,
    );
  });
  afterAll(async () => {
    await admin.close();
  });

  const of = (tenantId?: string) =>
    parked.filter((job) => tenantId === undefined || job.identity.tenantId === tenantId).sort(byListingOrder);
  const idOf = (job: Parked) => `${job.identity.tenantId}/${job.identity.operationId}`;

  it('spreads one state over more than 8 keys of each parked index, none outside the expected set', async () => {
    expect(parked.length).toBeGreaterThanOrEqual(40);
    const rows = await Promise.all(parked.map((job) => admin.store.get(parseIdentity(job.identity))));
    const stateKeys = new Set(rows.map((row) => row?.parkedState));
    const massKeys = new Set(rows.filter((row) => row?.tenantId === MASS).map((row) => row?.parkedTenantState));

    expect(stateKeys.size).toBeGreaterThan(8);
    expect(massKeys.size).toBeGreaterThan(8);
    expect([...stateKeys].every((key) => parkedStateKeys(WorkState.unknown).includes(key as string))).toBe(true);
    expect([...massKeys].every((key) => parkedTenantStateKeys(MASS, WorkState.unknown).includes(key as string))).toBe(
      true,
    );
  });

  it.each([
    [3, undefined],
    [5, undefined],
    [3, MASS],
    [5, MASS],
    [5, 'tenant-c'],
  ])(
    'pages through every shard oldest first, limit %i, tenant %s: nothing missing or repeated',
    async (limit, tenantId) => {
      const listed: Array<Record<string, unknown>> = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await listParked(admin.deps, {
          state: WorkState.unknown,
          limit,
          ...(tenantId ? { tenantId } : {}),
          ...(cursor ? { cursor } : {}),
        });
        expect(page.items.length).toBeLessThanOrEqual(limit);
        listed.push(...page.items);
        cursor = page.cursor;
        pages += 1;
      } while (cursor && pages < 100);

      expect(cursor).toBeUndefined();
      const ids = listed.map((item) => `${item.tenantId}/${item.operationId}`);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(of(tenantId).map(idOf).sort());
      // Oldest first across shards: exactly the expected times in order (jobs parked at the same instant may
      // come in any order within one shard, since a GSI documents no order for equal sort keys).
      expect(listed.map((item) => item.parkedAt)).toEqual(of(tenantId).map((job) => job.parkedAt));
      // Views show the state, not the shard; the per-tenant key stays hidden.
      for (const item of listed) {
        // (The per-tenant index does not project the cross-tenant key at all.)
        if (tenantId === undefined) expect(item.parkedState).toBe(WorkState.unknown);
        else expect(item).not.toHaveProperty('parkedState');
        expect(item).not.toHaveProperty('parkedTenantState');
      }
    },
  );

  it('an age bound keeps exactly the old enough items across shards, and ends at the first younger one', async () => {
    const now = admin.clock.now();
    const olderThanMs = (now - (of()[Math.floor(parked.length / 2)] as Parked).parkedAt) as number;
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listItems(admin.deps, {
        state: WorkState.unknown,
        limit: 4,
        olderThanMs,
        ...(cursor ? { cursor } : {}),
      });
      listed.push(...page.items.map((item) => `${item.tenantId}/${item.operationId}`));
      cursor = page.cursor;
    } while (cursor);

    expect([...listed].sort()).toEqual(
      of()
        .filter((job) => job.parkedAt <= now - olderThanMs)
        .map(idOf)
        .sort(),
    );
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('counts the exact total and the true oldest over every shard, across tenants and per tenant', async () => {
    const unknownOf = (states: StateCount[]) => states.find((entry) => entry.state === WorkState.unknown);

    const all = await countItems(admin.deps);
    const mass = await countItems(admin.deps, { tenantId: MASS });

    expect(unknownOf(all.states)).toEqual({
      state: WorkState.unknown,
      available: true,
      count: parked.length,
      complete: true,
      oldestAt: (of()[0] as Parked).parkedAt,
    });
    expect(unknownOf(mass.states)).toEqual({
      state: WorkState.unknown,
      available: true,
      count: MASS_COUNT,
      complete: true,
      oldestAt: (of(MASS)[0] as Parked).parkedAt,
    });
    expect(all.states.find((entry) => entry.state === WorkState.failed_terminal)).toMatchObject({ count: 0 });
  });

  it('refuses a cursor from another listing (tenant, state, or scope) with InvalidInputError on cursor', async () => {
    const across = await listParked(admin.deps, { state: WorkState.unknown, limit: 3 });
    const perTenant = await listParked(admin.deps, { state: WorkState.unknown, tenantId: MASS, limit: 3 });

    const refusals = [
      () => listParked(admin.deps, { state: WorkState.unknown, cursor: perTenant.cursor as string }),
      () => listParked(admin.deps, { state: WorkState.unknown, tenantId: MASS, cursor: across.cursor as string }),
      () =>
        listParked(admin.deps, { state: WorkState.unknown, tenantId: 'tenant-b', cursor: perTenant.cursor as string }),
      () => listParked(admin.deps, { state: WorkState.failed_terminal, cursor: across.cursor as string }),
    ];
    for (const refusal of refusals) {
      const error = await expectRejection(refusal(), InvalidInputError);
      expect(error.issues).toEqual([expect.objectContaining({ path: 'cursor' })]);
    }
    const http = await admin.call('GET', '/items', {
      query: { state: 'unknown', tenant: 'tenant-b', cursor: perTenant.cursor as string },
    });
    expect(http.statusCode).toBe(400);
  });
});
