import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkState } from '../../../lib/states.js';
import { parkedStateKey, parkedTenantStateKey, quarantineBucketOf } from '../../../lib/store/parked/parked-keys.js';
import { recordQuarantine } from '../../../lib/store/records/quarantine.js';
import { quarantineKey, TTL_ATTRIBUTE } from '../../../lib/store/table.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { eventually } from '../../support/expectations.js';
import { queryParkedByState, queryParkedByTenant, type StoreFixture, storeFixture } from '../../support/store.js';

const SECRET = 'card=4111111111111111';

describe('recordQuarantine', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('quarantine');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it('keeps the reason and a hash of the body, never the body', async () => {
    // Prepare
    const { client, clock } = fixture;
    const body = `{"v":9,"tenantId":"acme","note":"${SECRET}"}`;

    // Act
    const record = await recordQuarantine(client, tables.jobsTable, clock, {
      messageId: 'msg-0001',
      body,
      reason: 'unsupported_version',
      detail: 'envelope version 9 is not 1',
      receiveCount: 2,
    });

    // Assert
    const stored = (await client.send(new GetCommand({ TableName: tables.jobsTable, Key: quarantineKey('msg-0001') })))
      .Item;
    expect(stored).toEqual(record);
    expect(stored).toMatchObject({
      kind: 'quarantine',
      messageId: 'msg-0001',
      reason: 'unsupported_version',
      bodySha256: createHash('sha256').update(body, 'utf8').digest('hex'),
      bodyBytes: Buffer.byteLength(body, 'utf8'),
      receiveCount: 2,
      parkedState: parkedStateKey(WorkState.quarantined, quarantineBucketOf('msg-0001')),
      parkedAt: clock.now(),
    });
    expect(stored).not.toHaveProperty('parkedTenantState');
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(JSON.stringify(stored)).not.toContain('"note"');
    expect(stored?.[TTL_ATTRIBUTE]).toBeGreaterThan(Math.floor(clock.now() / 1000));
  });

  it('is listed in the cross-tenant parked index with the quarantined work items', async () => {
    const { client, clock } = fixture;

    await recordQuarantine(client, tables.jobsTable, clock, {
      messageId: 'msg-listed',
      body: 'not json',
      reason: 'unparseable',
      detail: 'body is not JSON',
    });

    const listed = await eventually(
      () => queryParkedByState(client, tables.jobsTable, WorkState.quarantined),
      (items) => items.some((item) => item.messageId === 'msg-listed'),
    );
    expect(listed.find((item) => item.messageId === 'msg-listed')).toMatchObject({ reason: 'unparseable' });
  });

  it('is listed per tenant when the envelope named a valid tenant', async () => {
    const { client, clock } = fixture;

    await recordQuarantine(client, tables.jobsTable, clock, {
      messageId: 'msg-tenant',
      body: '{"v":1,"tenantId":"acme"}',
      reason: 'invalid_envelope',
      detail: 'operationId: required',
      tenantId: 'acme',
    });

    const listed = await eventually(
      () => queryParkedByTenant(client, tables.jobsTable, 'acme', WorkState.quarantined),
      (items) => items.some((item) => item.messageId === 'msg-tenant'),
    );
    expect(listed.map((item) => item.messageId)).toContain('msg-tenant');
    const bucket = quarantineBucketOf('msg-tenant');
    expect(listed.find((item) => item.messageId === 'msg-tenant')).toMatchObject({
      parkedTenantState: parkedTenantStateKey('acme', bucket, WorkState.quarantined),
    });
  });

  it('is idempotent per message id and bounds what it stores', async () => {
    const { client, clock } = fixture;
    const input = { messageId: 'msg/../../x', body: 'x', reason: 'unparseable', detail: 'd'.repeat(5_000) };

    const first = await recordQuarantine(client, tables.jobsTable, clock, input);
    const second = await recordQuarantine(client, tables.jobsTable, clock, input);

    expect(second).toEqual(first);
    expect(first.messageId).toMatch(/^[A-Za-z0-9._:-]+$/);
    expect(first.detail).toHaveLength(500);
  });
});
