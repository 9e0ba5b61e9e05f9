import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';
import { WorkState } from '../../../lib/states.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { expectState } from '../../support/expectations.js';
import { TEST_CALLER_ARN } from '../../support/function-url-event.js';
import { drainQueue } from '../../support/queue-reader.js';

/** The identity of a seeded row (the store's methods accept exactly an identity). */
const id = (item: { tenantId: string; operationId: string }) => ({
  tenantId: item.tenantId,
  operationId: item.operationId,
});

const itemPath = (identity: { tenantId: string; operationId: string }, action = '') =>
  `/items/${identity.tenantId}/${encodeURIComponent(identity.operationId)}${action ? `/${action}` : ''}`;

describe('admin API on the real engines: items', () => {
  let admin: AdminFixture;
  beforeAll(async () => {
    admin = await createAdminFixture('admin-items');
  });
  afterAll(async () => {
    await admin.close();
  });

  const seed = (state: WorkState, tenantId?: string, parkedAgoMs?: number) => admin.seed(state, tenantId, parkedAgoMs);

  it('shows one item with its audit history; 404 for an unknown identity', async () => {
    // Prepare
    const item = await seed(WorkState.unknown, 'tenant-show');
    await admin.call('POST', itemPath(item, 'resolve'), {
      body: { to: 'failed_terminal', reason: 'checked upstream' },
    });

    // Act
    const shown = await admin.call('GET', itemPath(item));
    const missing = await admin.call('GET', '/items/tenant-show/no-such-op');

    // Assert
    expect(shown.statusCode).toBe(200);
    expect(shown.body.item).toMatchObject({ state: 'failed_terminal', fence: 6, operationId: item.operationId });
    expect((shown.body.item as { audit: unknown[] }).audit).toEqual([
      expect.objectContaining({
        actor: TEST_CALLER_ARN,
        action: 'resolve_failed_terminal',
        from: 'unknown',
        to: 'failed_terminal',
        fence: 6,
        reason: 'checked upstream',
      }),
    ]);
    expect(missing.statusCode).toBe(404);
    expect(missing.body.error).toBe('item_not_found');
  });

  it('resolves unknown to succeeded with an outcome code, audited on the item in the same write', async () => {
    // Prepare
    const item = await seed(WorkState.unknown, 'tenant-resolve');

    // Act
    const reply = await admin.call('POST', itemPath(item, 'resolve'), {
      body: { to: 'succeeded', reason: 'provider shows the refund', outcomeCode: 'refunded' },
    });

    // Assert
    expect(reply.statusCode).toBe(200);
    const stored = await expectState(admin.store, parseIdentity(id(item)), WorkState.succeeded);
    expect(stored).toMatchObject({ fence: 6, outcomeCode: 'refunded' });
    expect(stored.parkedState).toBeUndefined();
    expect(stored.audit?.at(-1)).toMatchObject({ actor: TEST_CALLER_ARN, action: 'resolve_succeeded' });
  });

  it('resolves unknown to queued: fresh attempts, fence + 1, and a wake-up for the same identity', async () => {
    // Prepare
    const item = await seed(WorkState.unknown, 'tenant-requeue');
    await drainQueue(admin.sqs, admin.queueUrl);

    // Act
    const reply = await admin.call('POST', itemPath(item, 'resolve'), {
      body: { to: 'queued', reason: 'not done upstream' },
    });

    // Assert
    expect(reply).toMatchObject({ statusCode: 200, body: { wake: 'sent' } });
    const stored = await expectState(admin.store, parseIdentity(id(item)), WorkState.queued);
    expect(stored).toMatchObject({ fence: 6, attempts: 0 });
    expect(stored.audit?.at(-1)).toMatchObject({ action: 'resolve_queued' });
    const [message, ...rest] = await drainQueue(admin.sqs, admin.queueUrl);
    expect(rest).toHaveLength(0);
    const parsed = parseEnvelope(message?.body ?? '');
    expect(parsed.ok && parsed.envelope).toMatchObject({
      kind: 'wake',
      tenantId: item.tenantId,
      operationId: item.operationId,
      payloadHash: item.payloadHash,
    });
  });

  it('retries failed_terminal and quarantined items with fence continuity and a wake-up; 409 from succeeded', async () => {
    // Prepare
    const failed = await seed(WorkState.failed_terminal, 'tenant-retry');
    const quarantined = await seed(WorkState.quarantined, 'tenant-retry');
    const done = await seed(WorkState.succeeded, 'tenant-retry');
    await drainQueue(admin.sqs, admin.queueUrl);

    // Act
    const retried = await admin.call('POST', itemPath(failed, 'retry'), { body: { reason: 'bug fixed' } });
    const unquarantined = await admin.call('POST', itemPath(quarantined, 'retry'), {
      body: { reason: 'schema v2 deployed' },
    });
    const refused = await admin.call('POST', itemPath(done, 'retry'), { body: { reason: 'again' } });

    // Assert
    expect(retried.statusCode).toBe(200);
    expect(unquarantined.statusCode).toBe(200);
    for (const identity of [failed, quarantined]) {
      const stored = await expectState(admin.store, parseIdentity(id(identity)), WorkState.queued);
      expect(stored).toMatchObject({ fence: 6, attempts: 0 });
      expect(stored.audit?.at(-1)).toMatchObject({ action: 'retry', actor: TEST_CALLER_ARN });
    }
    expect(await drainQueue(admin.sqs, admin.queueUrl)).toHaveLength(2);
    expect(refused).toMatchObject({
      statusCode: 409,
      body: { error: 'illegal_transition', currentState: 'succeeded' },
    });
    expect(await admin.store.get(parseIdentity(id(done)))).toEqual(done);
  });

  it('cancels a queued item raising the fence; a second cancel is 409', async () => {
    // Prepare
    const item = await seed(WorkState.queued, 'tenant-cancel');

    // Act
    const first = await admin.call('POST', itemPath(item, 'cancel'), { body: { reason: 'customer withdrew' } });
    const second = await admin.call('POST', itemPath(item, 'cancel'), { body: { reason: 'again' } });

    // Assert
    expect(first.statusCode).toBe(200);
    const stored = await expectState(admin.store, parseIdentity(id(item)), WorkState.cancelled);
    expect(stored.fence).toBe(6);
    expect(stored.audit).toEqual([
      expect.objectContaining({ action: 'cancel', reason: 'customer withdrew', fence: 6 }),
    ]);
    expect(second.statusCode).toBe(409);
  });

  it('rejects bad input with 400 naming the field and writes nothing', async () => {
    // Prepare
    const item = await seed(WorkState.unknown, 'tenant-bad');

    // Act
    const replies = {
      reason: await admin.call('POST', itemPath(item, 'resolve'), { body: { to: 'succeeded' } }),
      to: await admin.call('POST', itemPath(item, 'resolve'), { body: { to: 'cancelled', reason: 'x' } }),
      outcomeCode: await admin.call('POST', itemPath(item, 'resolve'), {
        body: { to: 'queued', reason: 'x', outcomeCode: 'ok' },
      }),
      actor: await admin.call('POST', itemPath(item, 'cancel'), {
        body: { reason: 'x', actor: 'arn:aws:iam::1:user/mallory' },
      }),
      body: await admin.call('POST', itemPath(item, 'cancel'), { body: '{"reason": ' }),
      tenantId: await admin.call('POST', `/items/bad%23tenant/${item.operationId}/cancel`, { body: { reason: 'x' } }),
      limit: await admin.call('GET', '/items', { query: { state: 'unknown', limit: '500' } }),
      state: await admin.call('GET', '/items', { query: { state: 'succeeded' } }),
    };

    // Assert
    for (const [field, reply] of Object.entries(replies)) {
      expect(reply.statusCode, field).toBe(400);
      expect(JSON.stringify(reply.body), field).toContain(field);
    }
    expect(await admin.store.get(parseIdentity(id(item)))).toEqual(item);
  });
});
