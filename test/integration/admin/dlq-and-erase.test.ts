import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayloadConflictError } from '../../../lib/errors.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { payloadKey } from '../../../lib/store/table.js';
import { type AdminFixture, createAdminFixture } from '../../support/admin.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { TEST_CALLER_ARN } from '../../support/function-url-event.js';
import { drainQueue } from '../../support/queue-reader.js';

describe('admin API on the real engines: DLQ redrive, payload erasure, audit records', () => {
  let admin: AdminFixture;
  beforeAll(async () => {
    admin = await createAdminFixture('admin-dlq');
  });
  afterAll(async () => {
    await admin.close();
  });

  const jobBody = (identity: JobIdentity) =>
    serializeEnvelope({
      v: 1,
      kind: 'job',
      ...identity,
      jobType: 'demo',
      payloadHash: payloadHash({ order: identity.operationId }),
      payload: { ref: `s3://payloads/${identity.operationId}` },
    });

  const putOnDlq = (body: string, attributes: Record<string, string> = {}) =>
    admin.sqs.send(
      new SendMessageCommand({
        QueueUrl: admin.dlqUrl,
        MessageBody: body,
        MessageAttributes: Object.fromEntries(
          Object.entries(attributes).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
        ),
      }),
    );

  it('redrives DLQ messages to the jobs queue with body and attributes unchanged, invalid bodies included, audited', async () => {
    // Prepare: three job messages and one body that is not an envelope.
    const identities = [newIdentity('tenant-dlq'), newIdentity('tenant-dlq'), newIdentity('tenant-dlq')];
    const bodies = identities.map(jobBody);
    for (const body of bodies) await putOnDlq(body, { origin: 'producer-7' });
    await putOnDlq('not json at all');

    // Act
    const reply = await admin.call('POST', '/dlq/redrive', { body: { max: 10 } });

    // Assert
    expect(reply).toMatchObject({
      statusCode: 200,
      body: { received: 4, moved: 4, movedInvalid: 1, sendFailed: 0, deleteFailed: 0 },
    });
    const moved = await drainQueue(admin.sqs, admin.queueUrl);
    expect(moved.map((message) => message.body).sort()).toEqual([...bodies, 'not json at all'].sort());
    expect(moved.filter((message) => message.attributes.origin === 'producer-7')).toHaveLength(3);
    expect(await drainQueue(admin.sqs, admin.dlqUrl)).toHaveLength(0);
    const audit = await admin.call('GET', '/audit', { query: { limit: '1' } });
    expect(audit.body.records).toEqual([
      expect.objectContaining({
        kind: 'audit',
        action: 'redrive',
        actor: TEST_CALLER_ARN,
        auditId: reply.body.auditId,
        counts: expect.objectContaining({ moved: 4, movedInvalid: 1 }),
      }),
    ]);
  });

  it('moves at most max messages per call; the rest stays in the DLQ', async () => {
    // Prepare
    for (let index = 0; index < 5; index += 1) await putOnDlq(jobBody(newIdentity('tenant-dlq')));

    // Act
    const reply = await admin.call('POST', '/dlq/redrive', { body: { max: 2 } });

    // Assert
    expect(reply.body).toMatchObject({ received: 2, moved: 2 });
    expect(await drainQueue(admin.sqs, admin.queueUrl)).toHaveLength(2);
    expect(await drainQueue(admin.sqs, admin.dlqUrl)).toHaveLength(3);
  });

  it("erases one tenant's payload bodies, keeps its work rows as tombstones and other tenants' bodies, audited", async () => {
    // Prepare: three inline jobs for the tenant to erase, one for another tenant.
    const erased = [newIdentity('tenant-erase'), newIdentity('tenant-erase'), newIdentity('tenant-erase')];
    const kept = newIdentity('tenant-keep');
    for (const identity of [...erased, kept]) {
      const body = { order: identity.operationId };
      await admin.payloads.put(identity, body, payloadHash(body));
      await admin.store.enqueue(newWorkItem(identity, { payloadRef: undefined, payloadInline: true }));
    }
    const rowsBefore = await Promise.all(erased.map((identity) => admin.store.get(identity)));

    // Act
    admin.clock.advance(1_000);
    const first = await admin.call('POST', '/tenants/tenant-erase/erase-payloads', {
      body: { reason: 'GDPR request 42', max: 2 },
    });
    admin.clock.advance(1_000);
    const second = await admin.call('POST', '/tenants/tenant-erase/erase-payloads', {
      body: { reason: 'GDPR request 42' },
    });

    // Assert
    expect(first.body).toMatchObject({ deleted: 2, complete: false });
    expect(second.body).toMatchObject({ deleted: 1, complete: true });
    for (const identity of erased) expect(await admin.payloads.get(identity)).toBeUndefined();
    expect(await admin.payloads.get(kept)).toMatchObject({ intact: true });
    expect(await Promise.all(erased.map((identity) => admin.store.get(identity)))).toEqual(rowsBefore);
    const audit = await admin.call('GET', '/audit', { query: { limit: '2' } });
    expect(audit.body.records).toEqual([
      expect.objectContaining({
        action: 'erase_payloads',
        tenant: hashIdentifier('tenant-erase', DEVELOPMENT_IDENTIFIER_KEY),
        reason: 'GDPR request 42',
        counts: {
          deleted: 1,
          cleared: 0,
          shadowCleared: 0,
          quarantineCleared: 0,
          deadLettersRemoved: 0,
          deadLettersUnattributed: 0,
          rawIdAuditRecords: 0,
          complete: 1,
        },
      }),
      expect.objectContaining({
        action: 'erase_payloads',
        counts: {
          deleted: 2,
          cleared: 0,
          shadowCleared: 0,
          quarantineCleared: 0,
          deadLettersRemoved: 0,
          deadLettersUnattributed: 0,
          complete: 0,
        },
      }),
    ]);
  });

  it('erasure keeps a tombstone with the hash: a different payload afterwards is a conflict, nothing stored or sent', async () => {
    // Prepare: a tenant's job whose body is erased.
    const identity = newIdentity('tenant-tomb');
    const body = { order: 'o-1', email: 'ada@example.com' };
    await admin.payloads.put(identity, body, payloadHash(body));
    await admin.call('POST', '/tenants/tenant-tomb/erase-payloads', { body: { reason: 'GDPR request 43' } });
    const key = payloadKey(identity);
    const tombstone = await admin.client.send(new GetCommand({ TableName: admin.tables.payloadsTable, Key: key }));
    const other = { order: 'o-1', email: 'mallory@example.com' };

    // Act
    const conflict = await sendJob(
      { sqs: admin.sqs, queueUrl: admin.queueUrl, payloads: admin.payloads },
      { ...identity, jobType: 'demo', payload: other },
    ).catch((error: unknown) => error);
    const same = await sendJob(
      { sqs: admin.sqs, queueUrl: admin.queueUrl, payloads: admin.payloads },
      { ...identity, jobType: 'demo', payload: body },
    );

    // Assert
    expect(conflict).toBeInstanceOf(PayloadConflictError);
    expect(tombstone.Item).toEqual({ ...key, payloadHash: payloadHash(body), erasedAt: expect.any(Number) });
    expect(same.payloadStored).toBe('erased');
    const after = await admin.client.send(new GetCommand({ TableName: admin.tables.payloadsTable, Key: key }));
    expect(after.Item).toEqual(tombstone.Item);
    const sent = await drainQueue(admin.sqs, admin.queueUrl);
    expect(sent.map((message) => JSON.parse(message.body).payloadHash)).toEqual([payloadHash(body)]);
  });

  it('answers 400 for a bad redrive or erase request and 400 for a bad tenant in the path', async () => {
    // Act
    const max = await admin.call('POST', '/dlq/redrive', { body: { max: 0 } });
    const reason = await admin.call('POST', '/tenants/tenant-erase/erase-payloads', { body: {} });
    const tenantId = await admin.call('POST', '/tenants/-bad-/erase-payloads', { body: { reason: 'x' } });

    // Assert
    expect(max.statusCode).toBe(400);
    expect(max.body.issues).toEqual([expect.objectContaining({ path: 'max' })]);
    expect(reason.body.issues).toEqual([expect.objectContaining({ path: 'reason' })]);
    expect(tenantId.body.issues).toEqual([expect.objectContaining({ path: 'tenantId' })]);
  });
});
