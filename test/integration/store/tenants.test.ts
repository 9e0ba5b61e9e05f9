import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import { workItemKey } from '../../../lib/store/table.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import {
  expectAbsent,
  expectClaimed,
  expectCreatedClaim,
  expectRejection,
  expectState,
  readRawItem,
} from '../../support/expectations.js';
import { newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

describe('tenant isolation', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('tenants');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it('keeps two tenants with the same operation id fully independent', async () => {
    // Prepare: same operation id, different tenants and different payloads (no conflict across tenants).
    const { store, client } = fixture;
    const acme = parseIdentity({ tenantId: 'acme', operationId: 'invoice-2026-01' });
    const globex = parseIdentity({ tenantId: 'globex', operationId: 'invoice-2026-01' });
    const acmeClaim = expectCreatedClaim(
      await store.enqueue(
        newWorkItem(acme, { payloadHash: payloadHash({ total: 1 }) }),
        parseLease({
          owner: 'w',
          leaseMs: 60_000,
        }),
      ),
    );
    await store.enqueue(newWorkItem(globex, { payloadHash: payloadHash({ total: 2 }) }));
    const globexBefore = await readRawItem(client, tables.jobsTable, globex);

    // Act: finish acme's job completely.
    await store.complete(acmeClaim, parseJobOutcome({ outcomeCode: 'sent' }));

    // Assert: globex is untouched, and still claims with its own first fence.
    await expectState(store, acme, WorkState.succeeded);
    expect(await readRawItem(client, tables.jobsTable, globex)).toEqual(globexBefore);
    const globexClaim = expectClaimed(await store.claim(globex, parseLease({ owner: 'w', leaseMs: 60_000 })));
    expect(globexClaim.fence).toBe(1);
    expect(globexClaim.payloadHash).toBe(payloadHash({ total: 2 }));
    await store.failTerminal(globexClaim, { errorCode: 'rejected' });
    const [acmeItem, globexItem] = [await store.get(acme), await store.get(globex)];
    expect(acmeItem).toMatchObject({ state: WorkState.succeeded, fence: 1, outcomeCode: 'sent' });
    expect(globexItem).toMatchObject({ state: WorkState.failed_terminal, fence: 1, errorCode: 'rejected' });
  });

  it('does not let a claim of one tenant touch the other tenant, even across fences', async () => {
    const { store, clock } = fixture;
    const left = parseIdentity({ tenantId: 'left', operationId: 'shared-op' });
    const right = parseIdentity({ tenantId: 'right', operationId: 'shared-op' });
    await store.enqueue(newWorkItem(left), parseLease({ owner: 'w', leaseMs: 1_000 }));
    await store.enqueue(newWorkItem(right), parseLease({ owner: 'w', leaseMs: 1_000 }));
    clock.advance(1_001);

    const takeover = expectClaimed(await store.claim(left, parseLease({ owner: 'w2', leaseMs: 1_000 })));

    expect(takeover.fence).toBe(2);
    expect((await store.get(right))?.fence).toBe(1);
  });
});

describe('identity collisions at the key level', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('collide');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it('rejects (a, b#c) and (a#b, c) before any request: # is the key delimiter', async () => {
    const { store, counter } = fixture;
    counter.reset();

    const left = await expectRejection(
      (async () => store.enqueue(newWorkItem({ tenantId: 'a', operationId: 'b#c' })))(),
      InvalidInputError,
    );
    const right = await expectRejection(
      (async () => store.enqueue(newWorkItem({ tenantId: 'a#b', operationId: 'c' })))(),
      InvalidInputError,
    );

    expect(left.issues.map((issue) => issue.path)).toEqual(['identity.operationId']);
    expect(right.issues.map((issue) => issue.path)).toEqual(['identity.tenantId']);
    expect(counter.total()).toBe(0);
  });

  it('stores (a, b.c) and (a.b, c) as two independent items under different keys', async () => {
    const { store } = fixture;
    const first = parseIdentity({ tenantId: 'a', operationId: 'b.c' });
    const second = parseIdentity({ tenantId: 'a.b', operationId: 'c' });
    expect(workItemKey(first)).not.toEqual(workItemKey(second));
    const firstClaim = expectCreatedClaim(
      await store.enqueue(
        newWorkItem(first, { payloadHash: payloadHash({ n: 1 }) }),
        parseLease({ owner: 'w', leaseMs: 60_000 }),
      ),
    );

    const secondResult = await store.enqueue(newWorkItem(second, { payloadHash: payloadHash({ n: 2 }) }));
    await store.complete(firstClaim, parseJobOutcome({ outcomeCode: 'ok' }));

    expect(secondResult.outcome).toBe('created');
    expect(await store.get(first)).toMatchObject({ ...workItemKey(first), state: WorkState.succeeded });
    expect(await store.get(second)).toMatchObject({ ...workItemKey(second), state: WorkState.queued, fence: 0 });
    await expectAbsent(store, parseIdentity({ tenantId: 'a', operationId: 'b' }));
  });
});
