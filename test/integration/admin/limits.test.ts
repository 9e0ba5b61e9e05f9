import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotLimit } from '../../../lib/flow-control/concurrency-limits.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { claimFixture } from '../../support/claim-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the admin API, asserted field by field
type Body = Record<string, any>;

const perTenant: SlotLimit[] = [{ scope: { kind: 'tenant', tenantId: 'acme' }, limit: 2 }];

describe('admin API GET /limits/{jobType}: slots in use and jobs waiting per limit, never a Scan', () => {
  let admin: AdminFixture;

  beforeAll(async () => {
    admin = await createAdminFixture('admin-limits');
    const { slots } = await admin.store.flow();
    for (const op of ['one', 'two']) {
      const claim = claimFixture({ tenantId: 'acme', operationId: op, claimId: `claim-${op}`, jobType: 'sync' });
      expect(await slots.acquire(claim, perTenant, admin.clock.now() + 60_000)).toMatchObject({ granted: true });
    }
    const waiter = claimFixture({ tenantId: 'acme', operationId: 'three', claimId: 'claim-three', jobType: 'sync' });
    const partition = slots.partitionOf('sync', { kind: 'tenant', tenantId: 'acme' });
    await slots.wait(partition, 2, waiter, { since: admin.clock.now() - 5_000, lane: 'urgent' });
  });
  afterAll(async () => {
    await admin.close();
  });

  it("reads the type's and the tenant's limit: the tenant's full (2 of 2) with one job waiting since 5 s ago", async () => {
    admin.counter.reset();
    const reply = await admin.call('GET', '/limits/sync', { query: { tenant: 'acme' } });
    expect(reply.statusCode).toBe(200);
    const body = reply.body as Body;
    expect(body.jobType).toBe('sync');
    expect(body.limits).toEqual([
      { scope: 'type', inUse: 0, expired: 0, waiting: 0 },
      {
        scope: 'tenant',
        tenantId: 'acme',
        limit: 2,
        inUse: 2,
        expired: 0,
        waiting: 1,
        oldestWaitingSince: admin.clock.now() - 5_000,
      },
    ]);
    expect(body.notRead).toMatch(/per-key/);
    expect(admin.counter.byCommand.ScanCommand).toBeUndefined();
  });

  it('past the holders’ leases the slots count as held past their lease, not in use', async () => {
    admin.clock.advance(120_000);
    const reply = await admin.call('GET', '/limits/sync', { query: { tenant: 'acme' } });
    expect((reply.body as Body).limits[1]).toMatchObject({ inUse: 0, expired: 2, waiting: 1 });
  });

  it('bad input is a 400 naming the field, a write method 405, nothing read', async () => {
    admin.counter.reset();
    const keyAlone = await admin.call('GET', '/limits/sync', { query: { key: 'k' } });
    expect(keyAlone.statusCode).toBe(400);
    expect(JSON.stringify(keyAlone.body)).toMatch(/name the tenant too/);
    expect((await admin.call('GET', '/limits/sync', { query: { tenantId: 'acme' } })).statusCode).toBe(400);
    expect((await admin.call('GET', '/limits/no%20spaces')).statusCode).toBe(400);
    expect(admin.counter.byCommand.QueryCommand).toBeUndefined();
    expect((await admin.call('POST', '/limits/sync')).statusCode).toBe(405);
    expect((await admin.call('GET', '/limits')).statusCode).toBe(404);
  });
});
