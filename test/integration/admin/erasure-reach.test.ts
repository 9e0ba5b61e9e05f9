import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import { type JobIdentity, parseIdentity } from '../../../lib/identity.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { newWorkItem } from '../../support/factories.js';
import { drainQueue } from '../../support/queue-reader.js';

/** Erasure reaches every copy leasefence keeps: the payloads table, the rows, the DLQ, and the audit log's ids. */
describe('erasure reaches a carried body in the DLQ, erases by operation, and audits pseudonyms only', () => {
  let admin: AdminFixture;
  beforeAll(async () => {
    admin = await createAdminFixture('erase-reach');
  });
  afterAll(async () => {
    await admin.close();
  });

  /** A job message that carries its body, as a producer's one-message send does. */
  const carried = (identity: JobIdentity, body: Record<string, unknown>, kind: 'job' | 'wake' = 'job') =>
    JSON.stringify({
      v: 1,
      kind,
      ...identity,
      jobType: 'demo',
      payloadHash: payloadHash(body),
      payload: { body },
    });

  const toDlq = (text: string) => admin.sqs.send(new SendMessageCommand({ QueueUrl: admin.dlqUrl, MessageBody: text }));

  /** Stores the body and its row, as the worker does for a message it took before it failed. */
  async function stored(identity: JobIdentity, body: Record<string, unknown>) {
    await admin.payloads.put(identity, body, payloadHash(body));
    await admin.store.enqueue(newWorkItem(identity, { payloadRef: undefined, payloadInline: true }));
  }

  /** Every item of both tables and every DLQ message, as text (the DLQ is drained: the test's last look). */
  async function everythingLeft(): Promise<string> {
    const scan = async (TableName: string) => (await admin.client.send(new ScanCommand({ TableName }))).Items ?? [];
    const items = [...(await scan(admin.tables.jobsTable)), ...(await scan(admin.tables.payloadsTable))];
    const messages = await drainQueue(admin.sqs, admin.dlqUrl);
    return JSON.stringify({ items, messages: messages.map((message) => message.body) });
  }

  it("erases a tenant whose carried body sits in the DLQ: the body is found nowhere afterwards, another tenant's stays", async () => {
    // prepare: the erased tenant's body in the payloads table and carried in two DLQ messages (one the worker
    // refused as an envelope: a wake-up carrying a body), another tenant's carried body in the DLQ too
    const erased = parseIdentity({ tenantId: 'tenant-gdpr', operationId: 'signup-1' });
    const kept = parseIdentity({ tenantId: 'tenant-stays', operationId: 'signup-1' });
    const secret = { email: 'ada-SECRET-7f3@example.com' };
    const other = { email: 'grace-KEPT-91c@example.com' };
    await stored(erased, secret);
    await toDlq(carried(erased, secret));
    await toDlq(carried(erased, secret, 'wake'));
    await toDlq(carried(kept, other));
    await toDlq('not json at all');

    // act
    admin.clock.advance(1_000);
    const reply = await admin.call('POST', '/tenants/tenant-gdpr/erase-payloads', { body: { reason: 'GDPR 77' } });
    const audit = await admin.call('GET', '/audit', { query: { limit: '1' } });
    const left = await everythingLeft();

    // assert
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toMatchObject({
      deleted: 1,
      complete: true,
      deadLetters: { removed: 2, unattributed: 1, deleteFailed: 0, complete: true },
    });
    expect(left).not.toContain('ada-SECRET-7f3');
    expect(left).toContain('grace-KEPT-91c');
    // The audit record names the tenant by its keyed pseudonym only: no raw id left anywhere in it.
    const [record] = audit.body.records as Array<Record<string, unknown>>;
    expect(record).toMatchObject({
      action: 'erase_payloads',
      tenant: hashIdentifier('tenant-gdpr', DEVELOPMENT_IDENTIFIER_KEY),
      counts: expect.objectContaining({ deadLettersRemoved: 2, deadLettersUnattributed: 1 }),
    });
    expect(JSON.stringify(record)).not.toContain('tenant-gdpr');
  });

  it('erases one operation only: its body and DLQ message go, a sibling whose id extends it (op-10) stays', async () => {
    // prepare
    const target = parseIdentity({ tenantId: 'tenant-ops', operationId: 'op-1' });
    const sibling = parseIdentity({ tenantId: 'tenant-ops', operationId: 'op-10' });
    const targetBody = { note: 'TARGET-c2a' };
    const siblingBody = { note: 'SIBLING-d41' };
    for (const [identity, body] of [
      [target, targetBody],
      [sibling, siblingBody],
    ] as const) {
      await stored(identity, body);
      await toDlq(carried(identity, body));
    }

    // act (a later time than the first test's erase: the audit log reads newest first)
    admin.clock.advance(1_000);
    const reply = await admin.call('POST', '/tenants/tenant-ops/erase-payloads', {
      body: { reason: 'GDPR 78', operationId: 'op-1' },
    });
    const audit = await admin.call('GET', '/audit', { query: { limit: '1' } });
    const targetAfter = await admin.payloads.get(target);
    const siblingAfter = await admin.payloads.get(sibling);
    const left = await everythingLeft();

    // assert
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toMatchObject({ deleted: 1, complete: true, deadLetters: { removed: 1 } });
    expect(targetAfter).toBeUndefined();
    expect(siblingAfter).toMatchObject({ intact: true });
    expect(left).not.toContain('TARGET-c2a');
    expect(left).toContain('SIBLING-d41');
    const [record] = audit.body.records as Array<Record<string, unknown>>;
    expect(record).toMatchObject({
      tenant: hashIdentifier('tenant-ops', DEVELOPMENT_IDENTIFIER_KEY),
      operation: hashIdentifier('op-1', DEVELOPMENT_IDENTIFIER_KEY),
    });
    expect(JSON.stringify(record)).not.toMatch(/tenant-ops|"op-1"/);
  });
});
