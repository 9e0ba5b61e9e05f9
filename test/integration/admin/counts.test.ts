import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkState } from '../../../lib/states.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the admin API, asserted field by field
type Body = Record<string, any>;

describe('admin API on the real engines: counts, tenant listings in any state, health', () => {
  let admin: AdminFixture;
  const minute = 60_000;

  beforeAll(async () => {
    admin = await createAdminFixture('admin-counts');
    // Prepare (shared, read-only afterwards): one tenant with items in every state, another with one unknown.
    await admin.seed(WorkState.unknown, 'count-a', 10 * minute);
    await admin.seed(WorkState.unknown, 'count-b', 2 * minute);
    await admin.seed(WorkState.quarantined, 'count-a');
    await admin.seed(WorkState.failed_terminal, 'count-a');
    for (let index = 0; index < 3; index += 1) await admin.seed(WorkState.succeeded, 'count-a');
    await admin.seed(WorkState.cancelled, 'count-a');
    await admin.seed(WorkState.queued, 'count-a');
    await admin.seed(WorkState.claimed, 'count-a', minute); // its lease (30 s) expired a minute ago
    await admin.sqs.send(new SendMessageCommand({ QueueUrl: admin.dlqUrl, MessageBody: '{"dead":true}' }));
  });
  afterAll(async () => {
    await admin.close();
  });

  const count = (body: Body, state: string) => body.states.find((entry: Body) => entry.state === state);
  const signal = (body: Body, name: string) => body.signals.find((entry: Body) => entry.name === name);

  it('counts per state across tenants from the indexes, never a Scan; succeeded and cancelled say why not', async () => {
    // act
    admin.counter.reset();
    const reply = await admin.call('GET', '/counts');

    // assert
    expect(reply.statusCode).toBe(200);
    const body = reply.body as Body;
    expect(count(body, 'unknown')).toEqual({
      state: 'unknown',
      available: true,
      count: 2,
      complete: true,
      oldestAt: admin.clock.now() - 10 * minute,
    });
    expect(count(body, 'quarantined')).toMatchObject({ available: true, count: 1 });
    expect(count(body, 'failed_terminal')).toMatchObject({ available: true, count: 1 });
    expect(count(body, 'claimed')).toMatchObject({ available: true, count: 1, complete: true });
    expect(count(body, 'queued')).toMatchObject({ available: true, count: 1 });
    expect(count(body, 'succeeded')).toMatchObject({ available: false, reason: expect.stringContaining('Scan') });
    expect(body.deadLetters).toMatchObject({ available: true, depth: 1 });
    expect(signal(body, 'claimedStalled')).toMatchObject({ available: true, value: 1, unit: 'items' });
    expect(signal(body, 'unknownAge')).toMatchObject({ available: true, value: 600, unit: 'seconds' });
    expect(signal(body, 'takeoverRate')).toMatchObject({
      available: false,
      reason: expect.stringContaining('not available on this target'),
    });
    expect(admin.counter.byCommand.ScanCommand).toBeUndefined();
    expect(admin.counter.byCommand.QueryCommand).toBeGreaterThan(0);
  });

  it('counts every state of one tenant with a Query on its partition keys', async () => {
    // act
    const reply = await admin.call('GET', '/counts', { query: { tenant: 'count-a' } });

    // assert
    const body = reply.body as Body;
    expect(body.tenantId).toBe('count-a');
    expect(
      Object.fromEntries(body.states.map((entry: Body) => [entry.state, entry.available ? entry.count : 'n/a'])),
    ).toEqual({
      awaiting_approval: 0,
      queued: 1,
      claimed: 1,
      succeeded: 3,
      failed_terminal: 1,
      unknown: 1,
      quarantined: 1,
      cancelled: 1,
    });
  });

  it('lists succeeded items of a tenant page by page, and every state of a tenant without a state', async () => {
    // act
    const first = await admin.call('GET', '/items', { query: { state: 'succeeded', tenant: 'count-a', limit: '2' } });
    const cursor = (first.body as Body).cursor as string;
    const second = await admin.call('GET', '/items', {
      query: { state: 'succeeded', tenant: 'count-a', limit: '2', cursor },
    });
    const all = await admin.call('GET', '/items', { query: { tenant: 'count-a', limit: '100' } });
    const refused = await admin.call('GET', '/items', { query: { state: 'succeeded' } });

    // assert
    const firstItems = (first.body as Body).items as Body[];
    const secondItems = (second.body as Body).items as Body[];
    expect(firstItems).toHaveLength(2);
    expect(cursor).toEqual(expect.any(String));
    expect(secondItems.map((item) => item.state)).toEqual(['succeeded']);
    expect(new Set([...firstItems, ...secondItems].map((item) => item.operationId)).size).toBe(3);
    const states = ((all.body as Body).items as Body[]).map((item) => item.state).sort();
    expect(states).toEqual([
      'cancelled',
      'claimed',
      'failed_terminal',
      'quarantined',
      'queued',
      'succeeded',
      'succeeded',
      'succeeded',
      'unknown',
    ]);
    expect(refused.statusCode).toBe(400);
    expect(refused.body.issues).toEqual([expect.objectContaining({ path: 'tenant' })]);
  });

  it('lists claimed items across tenants and parked items older than a bound', async () => {
    // act
    const claimed = await admin.call('GET', '/items', { query: { state: 'claimed' } });
    const old = await admin.call('GET', '/items', { query: { state: 'unknown', olderThanSeconds: '300' } });

    // assert
    expect(((claimed.body as Body).items as Body[]).map((item) => item.tenantId)).toEqual(['count-a']);
    expect(((old.body as Body).items as Body[]).map((item) => item.tenantId)).toEqual(['count-a']);
  });

  it('GET /health reads the table and the DLQ', async () => {
    // act
    const reply = await admin.call('GET', '/health');

    // assert
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toMatchObject({ status: 'ok', checks: { jobsTable: 'ok', deadLetterQueue: 'ok' } });
  });
});
