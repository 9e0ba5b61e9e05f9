import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudonymiseAuditRecords } from '../../../lib/admin/audit-raw-ids.js';
import { listItems } from '../../../lib/admin/list.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import { type JobIdentity, parseIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import { AuditMigration } from '../../../lib/store/index.js';
import { AUDIT_PARTITION, quarantineKey } from '../../../lib/store/table.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { newWorkItem } from '../../support/factories.js';
import { drainQueue } from '../../support/queue-reader.js';

const pseudonym = (id: string) => hashIdentifier(id, DEVELOPMENT_IDENTIFIER_KEY);

/**
 * Erasure reaches the identifiers leasefence keeps beside a tenant's rows: the quarantine records of messages the
 * worker refused, and the audit records older versions wrote with raw ids (rewritten by the one-off migration).
 */
describe('erasure reaches the ids on quarantine and audit records', () => {
  let admin: AdminFixture;
  beforeAll(async () => {
    admin = await createAdminFixture('erase-ids');
  });
  afterAll(async () => {
    await admin.close();
  });

  /** The one-off migration's writer, on the operator's client (in the tests: the fixture's). */
  const auditMigration = () => new AuditMigration(admin.client, admin.tables.jobsTable);

  /** A message the worker refused for `identity`, recorded as the worker records it (the body only as a digest). */
  const quarantined = (messageId: string, identity: JobIdentity) =>
    admin.store.recordQuarantine({
      messageId,
      body: JSON.stringify({ v: 1, kind: 'job', ...identity, jobType: 'retired-type' }),
      reason: 'unknown_job_type',
      detail: 'job type is not registered',
      ...identity,
    });

  /** An audit record as versions before pseudonyms wrote it: the tenant (and operation) by raw id. */
  const legacyAudit = (auditId: string, identity: Partial<JobIdentity>) =>
    admin.client.send(
      new PutCommand({
        TableName: admin.tables.jobsTable,
        Item: {
          pk: AUDIT_PARTITION,
          sk: `audit#2026-11-01T00:00:00.000Z#${auditId}`,
          kind: 'audit',
          auditId,
          at: Date.parse('2026-11-01T00:00:00.000Z'),
          actor: 'arn:aws:iam::111122223333:user/ops',
          action: 'read_payload',
          reason: 'approval review',
          ...identity,
          counts: { shown: 1 },
        },
      }),
    );

  const quarantineRecord = async (messageId: string) =>
    (await admin.client.send(new GetCommand({ TableName: admin.tables.jobsTable, Key: quarantineKey(messageId) })))
      .Item;

  const erase = (tenantId: string, body: Record<string, unknown>) =>
    admin.call('POST', `/tenants/${tenantId}/erase-payloads`, { body: { reason: 'GDPR 90', ...body } });

  it("removes the raw ids of the quarantine records naming the erased operation, then tenant; they stay listed across tenants, another tenant's keep theirs", async () => {
    // prepare
    await quarantined('msg-q1', parseIdentity({ tenantId: 'tenant-q', operationId: 'op-1' }));
    await quarantined('msg-q10', parseIdentity({ tenantId: 'tenant-q', operationId: 'op-10' }));
    await quarantined('msg-other', parseIdentity({ tenantId: 'tenant-other', operationId: 'op-1' }));

    // act
    const byOperation = await erase('tenant-q', { operationId: 'op-1' });
    const afterOperation = { q1: await quarantineRecord('msg-q1'), q10: await quarantineRecord('msg-q10') };
    const byTenant = await erase('tenant-q', {});
    const tenantListing = await listItems(admin.deps, { state: WorkState.quarantined, tenantId: 'tenant-q' });
    const everyListing = await listItems(admin.deps, { state: WorkState.quarantined });
    const other = await quarantineRecord('msg-other');

    // assert: the operation erase reached op-1 only (never op-10), the tenant erase the rest
    expect(byOperation.body).toMatchObject({ quarantineCleared: 1, complete: true });
    expect(afterOperation.q1).not.toHaveProperty('tenantId');
    expect(afterOperation.q1).not.toHaveProperty('operationId');
    expect(afterOperation.q1).not.toHaveProperty('parkedTenantState');
    expect(afterOperation.q10).toMatchObject({ tenantId: 'tenant-q', operationId: 'op-10' });
    expect(byTenant.body).toMatchObject({ quarantineCleared: 1, complete: true });
    expect(JSON.stringify(await quarantineRecord('msg-q10'))).not.toMatch(/tenant-q|op-10/);
    // The erased records are no longer the tenant's, but an operator still sees why each message was refused.
    expect(tenantListing.items).toEqual([]);
    expect(everyListing.items.map((item) => [item.messageId, item.reason]).sort()).toEqual([
      ['msg-other', 'unknown_job_type'],
      ['msg-q1', 'unknown_job_type'],
      ['msg-q10', 'unknown_job_type'],
    ]);
    expect(other).toMatchObject({ tenantId: 'tenant-other', operationId: 'op-1' });
  });

  it('reports the audit records written with raw ids (the admin cannot rewrite them); the one-off migration rewrites every one to the pseudonyms', async () => {
    // prepare
    await legacyAudit('legacy-1', { tenantId: 'tenant-a1', operationId: 'op-1' });
    await legacyAudit('legacy-2', { tenantId: 'tenant-a1' });
    await legacyAudit('legacy-3', { tenantId: 'tenant-a2', operationId: 'op-9' });

    // act
    const erased = await erase('tenant-a1', {});
    const migration = await pseudonymiseAuditRecords(admin.deps, auditMigration());
    const again = await pseudonymiseAuditRecords(admin.deps, auditMigration());
    const erasedAgain = await erase('tenant-a1', {});
    const audit = await admin.call('GET', '/audit', { query: { limit: '100' } });

    // assert
    expect(erased.body).toMatchObject({ complete: true, rawIdAuditRecords: { found: 2, complete: true } });
    expect(migration).toEqual({ rewritten: 3, skipped: 0, complete: true });
    expect(again).toEqual({ rewritten: 0, skipped: 0, complete: true });
    expect(erasedAgain.body).toMatchObject({ rawIdAuditRecords: { found: 0, complete: true } });
    const records = audit.body.records as Array<Record<string, unknown>>;
    const legacy = Object.fromEntries(
      records.filter((record) => String(record.auditId).startsWith('legacy')).map((r) => [r.auditId, r]),
    );
    expect(legacy['legacy-1']).toMatchObject({ tenant: pseudonym('tenant-a1'), operation: pseudonym('op-1') });
    expect(legacy['legacy-2']).toMatchObject({ tenant: pseudonym('tenant-a1') });
    expect(legacy['legacy-3']).toMatchObject({ tenant: pseudonym('tenant-a2'), operation: pseudonym('op-9') });
    expect(JSON.stringify(records)).not.toMatch(/tenant-a1|tenant-a2|"op-1"|"op-9"/);
  });

  it('erases a tenant whose body sits in the DLQ and whose ids are on quarantine and audit records: afterwards its raw ids and body are in no table and no queue, except the identity its work row and payload tombstone keep', async () => {
    // prepare: the body stored and carried in the DLQ, a refused message's quarantine record, a legacy audit record
    const identity = parseIdentity({ tenantId: 'tenant-gone-4k', operationId: 'signup-77q' });
    const body = { email: 'lin-SECRET-52e@example.com' };
    await admin.payloads.put(identity, body, payloadHash(body));
    await admin.store.enqueue(newWorkItem(identity, { payloadRef: undefined, payloadInline: true }));
    const carried = { v: 1, kind: 'job', ...identity, jobType: 'demo', payloadHash: payloadHash(body) };
    await admin.sqs.send(
      new SendMessageCommand({
        QueueUrl: admin.dlqUrl,
        MessageBody: JSON.stringify({ ...carried, payload: { body } }),
      }),
    );
    await quarantined('msg-gone', identity);
    await legacyAudit('legacy-gone', identity);

    // act: the erase, then the one-off migration it asks for
    const erased = await erase(identity.tenantId, {});
    await pseudonymiseAuditRecords(admin.deps, auditMigration());
    const scan = async (TableName: string) => (await admin.client.send(new ScanCommand({ TableName }))).Items ?? [];
    const items = [...(await scan(admin.tables.jobsTable)), ...(await scan(admin.tables.payloadsTable))];
    const messages = [
      ...(await drainQueue(admin.sqs, admin.dlqUrl)),
      ...(await drainQueue(admin.sqs, admin.queueUrl)),
    ].map((message) => message.body);

    // assert
    expect(erased.body).toMatchObject({
      deleted: 1,
      quarantineCleared: 1,
      deadLetters: { removed: 1 },
      rawIdAuditRecords: { found: 1 },
      complete: true,
    });
    const rawIds = /tenant-gone-4k|signup-77q/;
    expect(JSON.stringify({ items, messages })).not.toContain('lin-SECRET-52e');
    expect(JSON.stringify(messages)).not.toMatch(rawIds);
    // Only the rows that keep the identity bound (fences never go backwards, a different payload stays refused) name
    // it, and only in their identity attributes.
    const naming = items.filter((item) => rawIds.test(JSON.stringify(item)));
    expect(naming.map((item) => String(item.sk).split('#')[0]).sort()).toEqual(['op', 'payload']);
    for (const item of naming) {
      const { pk, sk, tenantId, operationId, ...rest } = item;
      expect(JSON.stringify(rest)).not.toMatch(rawIds);
    }
  });
});
