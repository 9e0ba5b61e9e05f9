import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordQuarantine } from '../../../lib/quarantine.js';
import { WorkState } from '../../../lib/states.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';

describe('admin API on the real engines: listing parked items', () => {
  let admin: AdminFixture;
  beforeAll(async () => {
    admin = await createAdminFixture('admin-list');
  });
  afterAll(async () => {
    await admin.close();
  });

  const seed = (state: WorkState, tenantId?: string, parkedAgoMs?: number) => admin.seed(state, tenantId, parkedAgoMs);

  it('lists parked items oldest first, paginates with an opaque cursor, filters by tenant, includes quarantine records', async () => {
    // Prepare: four unknown items parked at different times over two tenants, and one quarantine record.
    const oldest = await seed(WorkState.unknown, 'tenant-list', 40_000);
    const second = await seed(WorkState.unknown, 'tenant-other', 30_000);
    const third = await seed(WorkState.unknown, 'tenant-list', 20_000);
    admin.clock.advance(-10_000);
    const quarantine = await recordQuarantine(admin.client, admin.tables.jobsTable, admin.clock, {
      messageId: 'msg-1',
      body: '{"v":99}',
      reason: 'unsupported_version',
      detail: 'envelope version 99 is not 1',
      tenantId: 'tenant-list',
    });
    admin.clock.advance(10_000);
    const newest = await seed(WorkState.unknown, 'tenant-list', 0);
    await seed(WorkState.failed_terminal, 'tenant-list');

    // Act: page through the cross-tenant listing two at a time until no cursor is returned, then list one
    // tenant. (A page that ends on the last item may or may not carry a cursor: DynamoDB returns one, moto not.)
    const pages: Array<Awaited<ReturnType<typeof admin.call>>> = [];
    let cursor: string | undefined;
    do {
      const page = await admin.call('GET', '/items', {
        query: { state: 'unknown', limit: '2', ...(cursor ? { cursor } : {}) },
      });
      pages.push(page);
      cursor = typeof page.body.cursor === 'string' ? page.body.cursor : undefined;
    } while (cursor && pages.length < 5);
    const tenantOnly = await admin.call('GET', '/items', { query: { state: 'unknown', tenant: 'tenant-list' } });
    const quarantined = await admin.call('GET', '/items', { query: { state: 'quarantined', tenant: 'tenant-list' } });

    // Assert
    const ids = (page: (typeof pages)[number]) =>
      (page.body.items as Array<{ operationId?: string }>).map((row) => row.operationId);
    expect(pages.map((page) => page.statusCode)).toEqual(pages.map(() => 200));
    expect(pages[0]?.body.items).toHaveLength(2);
    expect(pages.length).toBeLessThanOrEqual(3);
    expect(pages.flatMap(ids)).toEqual([oldest.operationId, second.operationId, third.operationId, newest.operationId]);
    expect(pages.at(-1)?.body.cursor).toBeUndefined();
    expect(ids(tenantOnly)).toEqual([oldest.operationId, third.operationId, newest.operationId]);
    const rows = quarantined.body.items as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'quarantine',
      messageId: quarantine.messageId,
      reason: 'unsupported_version',
    });
    expect(rows[0]).not.toHaveProperty('pk');
  });

  it('rejects a malformed cursor and a cursor from another listing with 400 naming cursor', async () => {
    // Prepare
    await seed(WorkState.failed_terminal, 'tenant-cursor');
    await seed(WorkState.failed_terminal, 'tenant-cursor');
    const page = await admin.call('GET', '/items', {
      query: { state: 'failed_terminal', tenant: 'tenant-cursor', limit: '1' },
    });

    // Act
    const garbage = await admin.call('GET', '/items', { query: { state: 'failed_terminal', cursor: 'not!a!cursor' } });
    const foreign = await admin.call('GET', '/items', {
      query: { state: 'failed_terminal', cursor: String(page.body.cursor) },
    });

    // Assert
    expect(page.body.cursor).toEqual(expect.any(String));
    for (const reply of [garbage, foreign]) {
      expect(reply.statusCode).toBe(400);
      expect(reply.body.issues).toEqual([expect.objectContaining({ path: 'cursor' })]);
    }
  });
});
