import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import { StackCheckRows } from '../../../lib/store/maintenance/stack-check-rows.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import { recordQuarantine } from '../../../lib/store/records/quarantine.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { putWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

describe('StackCheckRows: the rows a stack check made, deleted through the store', () => {
  let tables: TestTables;
  let fixture: StoreFixture;
  let rows: StackCheckRows;
  const mine = { tenantId: 'lfcheck-abcd1234-0-replay', operationId: 'conformance-op' };
  const successor = { tenantId: mine.tenantId, operationId: 'conformance-op/next' };
  const held = { tenantId: 'lfcheck-abcd1234-0-held', operationId: 'conformance-op' };
  const real = { tenantId: 'acme', operationId: 'conformance-op' };
  const put = (identity: typeof mine, state: WorkState, overrides: Record<string, unknown> = {}) =>
    putWorkItem(fixture.client, tables.jobsTable, { identity, state, now: Date.now(), overrides });

  beforeAll(async () => {
    tables = await createTestTables('stack-check-rows');
    fixture = storeFixture(tables.jobsTable);
    rows = new StackCheckRows(fixture.client, { jobsTable: tables.jobsTable, payloadsTable: tables.payloadsTable });
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it("deletes the check's work, payload, successor and quarantine rows, never a claimed one, and refuses any other tenant", async () => {
    // Prepare: a finished job with a payload body and a successor, a claimed one, a real tenant's row, quarantines
    await put(mine, WorkState.succeeded, { successors: [successor.operationId] });
    await put(successor, WorkState.succeeded);
    await new PayloadStore(fixture.client, tables.payloadsTable, fixture.clock).put(
      mine,
      { n: 1 },
      payloadHash({ n: 1 }),
    );
    await put(held, WorkState.claimed);
    await put(real, WorkState.succeeded);
    const quarantine = (messageId: string, tenantId?: string) =>
      recordQuarantine(fixture.client, tables.jobsTable, fixture.clock, {
        messageId,
        body: '{',
        reason: 'unparseable',
        detail: 'not JSON',
        ...(tenantId ? { tenantId } : {}),
      });
    await quarantine('msg-mine');
    await quarantine('msg-real', 'acme');

    // Act
    const refused = await rows.remove([mine, real], ['msg-mine']).catch((error: unknown) => error);
    const before = await rows.count([mine, held], ['msg-mine', 'msg-real']);
    const removed = await rows.remove([mine, held], ['msg-mine', 'msg-real']);
    const after = await rows.count([mine, held], ['msg-mine', 'msg-real']);

    // Assert
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect(before).toBe(6);
    expect(removed).toEqual({ found: 5, deleted: 4, leftClaimed: 1 });
    expect(after).toBe(2);
    expect(await rows.quarantine('msg-real')).toMatchObject({ tenantId: 'acme' });
    expect(await fixture.store.get(parseIdentity(real))).toMatchObject({ state: 'succeeded' });
    expect(await fixture.store.get(parseIdentity(held))).toMatchObject({ state: 'claimed' });
  });
});
