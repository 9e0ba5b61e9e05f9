import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import { recordQuarantine } from '../../../lib/store/records/quarantine.js';
import {
  DEFAULT_DEADLINE_SHARDS,
  deadlineShardFor,
  deadlineShardName,
  tenantBucketOf,
} from '../../../lib/store/table.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { newIdentity, putWorkItem } from '../../support/factories.js';

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
  it("pages a tenant's items of one state: every page full until the last, each item once, one Query per partition at most", async () => {
    // Prepare: seven succeeded items in one of the tenant's 16 partitions (so pages end inside it), and six of
    // other states anywhere.
    const succeeded: JobIdentity[] = [];
    while (succeeded.length < 7) {
      const identity = newIdentity('tenant-pages');
      if (tenantBucketOf(identity) === 5) succeeded.push(identity);
    }
    for (const identity of succeeded) {
      await putWorkItem(admin.client, admin.tables.jobsTable, { identity, state: WorkState.succeeded });
    }
    for (let index = 0; index < 3; index += 1) await seed(WorkState.cancelled, 'tenant-pages');
    for (let index = 0; index < 3; index += 1) await seed(WorkState.failed_terminal, 'tenant-pages');

    // Act: three items a page until no cursor is returned, counting the Queries of each page.
    const pages: { ids: string[]; queries: number }[] = [];
    let cursor: string | undefined;
    do {
      admin.counter.reset();
      const page = await admin.call('GET', '/items', {
        query: { state: 'succeeded', tenant: 'tenant-pages', limit: '3', ...(cursor ? { cursor } : {}) },
      });
      expect(page.statusCode).toBe(200);
      pages.push({
        ids: (page.body.items as { operationId: string }[]).map((item) => item.operationId),
        queries: admin.counter.byCommand.QueryCommand ?? 0,
      });
      cursor = typeof page.body.cursor === 'string' ? page.body.cursor : undefined;
    } while (cursor && pages.length < 10);

    // Assert
    expect(pages.map((page) => page.ids.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((page) => page.ids).sort()).toEqual(succeeded.map((identity) => identity.operationId).sort());
    for (const page of pages) expect(page.queries).toBeLessThanOrEqual(16);
  });
  it('fills a page of one whose only match sits in the last partition, behind rows of other states', async () => {
    // Prepare: twelve cancelled items in the tenant's first fifteen partitions, one succeeded item in the last.
    const inBucket = (accept: (bucket: number) => boolean): JobIdentity => {
      for (;;) {
        const identity = newIdentity('tenant-sparse');
        if (accept(tenantBucketOf(identity))) return identity;
      }
    };
    for (let index = 0; index < 12; index += 1) {
      const identity = inBucket((bucket) => bucket < 15);
      await putWorkItem(admin.client, admin.tables.jobsTable, { identity, state: WorkState.cancelled });
    }
    const last = inBucket((bucket) => bucket === 15);
    await putWorkItem(admin.client, admin.tables.jobsTable, { identity: last, state: WorkState.succeeded });

    // Act
    admin.counter.reset();
    const page = await admin.call('GET', '/items', {
      query: { state: 'succeeded', tenant: 'tenant-sparse', limit: '1' },
    });

    // Assert: one read per partition is enough (a page filled one evaluated row at a time needed more than 20).
    expect((page.body.items as { operationId: string }[]).map((item) => item.operationId)).toEqual([last.operationId]);
    expect(admin.counter.byCommand.QueryCommand).toBeLessThanOrEqual(16);
  });
  it("pages a tenant's queued items through one deadline shard shared with another tenant: each item once", async () => {
    // Prepare: five queued items of one tenant and four of another, all in deadline shard 7.
    const inShard = (tenantId: string): JobIdentity => {
      for (;;) {
        const identity = newIdentity(tenantId);
        if (deadlineShardFor(identity, DEFAULT_DEADLINE_SHARDS) === deadlineShardName(7)) return identity;
      }
    };
    const mine = Array.from({ length: 5 }, () => inShard('tenant-active'));
    const theirs = Array.from({ length: 4 }, () => inShard('tenant-elsewhere'));
    for (const identity of [...theirs, ...mine]) {
      await putWorkItem(admin.client, admin.tables.jobsTable, { identity, state: WorkState.queued });
    }

    // Act
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await admin.call('GET', '/items', {
        query: { state: 'queued', tenant: 'tenant-active', limit: '2', ...(cursor ? { cursor } : {}) },
      });
      pages.push((page.body.items as { operationId: string }[]).map((item) => item.operationId));
      cursor = typeof page.body.cursor === 'string' ? page.body.cursor : undefined;
    } while (cursor && pages.length < 10);

    // Assert
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().sort()).toEqual(mine.map((identity) => identity.operationId).sort());
  });
});
