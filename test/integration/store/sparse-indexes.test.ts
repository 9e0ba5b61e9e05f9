import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import type { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { parkedStateKey, parkedTenantStateKey } from '../../../lib/store/parked/parked-keys.js';
import { tenantBucketOf, workItemKey } from '../../../lib/store/table.js';
import { parseLease, parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { Claim, WorkItem } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { eventually, expectCreatedClaim, expectState } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import {
  queryDeadlineShard,
  queryParkedByState,
  queryParkedByTenant,
  type StoreFixture,
  storeFixture,
} from '../../support/store.js';

const LEASE_MS = 60_000;
const DEADLINE = ['deadlineShard', 'deadlineAt'] as const;
const PARKED = ['parkedState', 'parkedTenantState', 'parkedAt'] as const;

const isFor = (identity: ValidIdentity) => (item: Record<string, unknown>) =>
  item.tenantId === identity.tenantId && item.operationId === identity.operationId;

describe('sparse index attributes follow the state', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('sparse');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  async function claimedItem(tenantId = 'tenant-a'): Promise<{ identity: ValidIdentity; claim: Claim }> {
    const identity = newIdentity(tenantId);
    const claim = expectCreatedClaim(
      await fixture.store.enqueue(newWorkItem(identity), parseLease({ owner: 'w1', leaseMs: LEASE_MS })),
    );
    return { identity, claim };
  }

  /** Finds the item in its deadline shard (or not), waiting out GSI propagation on engines that have it. */
  async function inDeadlineIndex(identity: ValidIdentity, expected: boolean): Promise<boolean> {
    const shard = fixture.store.deadlines.shardOf(identity);
    const items = await eventually(
      () => queryDeadlineShard(fixture.client, tables.jobsTable, shard),
      (found) => found.some(isFor(identity)) === expected,
    );
    return items.some(isFor(identity));
  }

  async function inParkedIndexes(
    identity: ValidIdentity,
    state: string,
    expected: boolean,
  ): Promise<[boolean, boolean]> {
    const byState = await eventually(
      () => queryParkedByState(fixture.client, tables.jobsTable, state),
      (found) => found.some(isFor(identity)) === expected,
    );
    const byTenant = await eventually(
      () => queryParkedByTenant(fixture.client, tables.jobsTable, identity.tenantId, state),
      (found) => found.some(isFor(identity)) === expected,
    );
    return [byState.some(isFor(identity)), byTenant.some(isFor(identity))];
  }

  it('a queued item carries its due time in the deadline index', async () => {
    const identity = newIdentity();
    const availableAt = fixture.clock.now() + 5_000;

    await fixture.store.enqueue(newWorkItem(identity, { availableAt }));

    const item = await expectState(fixture.store, identity, WorkState.queued);
    expect(item.deadlineAt).toBe(availableAt);
    expect(await inDeadlineIndex(identity, true)).toBe(true);
  });

  it('a claim puts the lease expiry in the deadline index; a heartbeat leaves the index alone; complete removes it', async () => {
    const { identity, claim } = await claimedItem();
    const claimedRow = await expectState(fixture.store, identity, WorkState.claimed);
    expect(claimedRow.deadlineShard).toBe(fixture.store.deadlines.shardOf(identity));
    expect(claimedRow.deadlineAt).toBe(claim.leaseExpiresAt);
    expect(await inDeadlineIndex(identity, true)).toBe(true);

    fixture.clock.advance(1_000);
    const renewed = await fixture.store.heartbeat(claim, parseLeaseDuration(LEASE_MS));
    const renewedRow = await fixture.store.get(identity);
    expect(renewedRow?.leaseExpiresAt).toBe(renewed.leaseExpiresAt);
    expect(renewedRow?.deadlineAt).toBe(claim.leaseExpiresAt);

    await fixture.store.complete(renewed, parseJobOutcome({ outcomeCode: 'ok' }));

    const done = await expectState(fixture.store, identity, WorkState.succeeded);
    for (const attribute of [...DEADLINE, 'leaseOwner', 'leaseExpiresAt', ...PARKED]) {
      expect(done).not.toHaveProperty(attribute);
    }
    expect(await inDeadlineIndex(identity, false)).toBe(false);
  });

  it('a retryable failure keeps the item in the deadline index at its new due time, with no lease', async () => {
    const { identity, claim } = await claimedItem();

    await fixture.store.failRetryable(claim, { errorCode: 'later', retryDelayMs: 7_000 });

    const item = await expectState(fixture.store, identity, WorkState.queued);
    expect(item.deadlineAt).toBe(fixture.clock.now() + 7_000);
    expect(item).not.toHaveProperty('leaseExpiresAt');
    expect(await inDeadlineIndex(identity, true)).toBe(true);
  });

  it.each<[string, WorkState, (store: OperatorStore, claim: Claim) => Promise<unknown>]>([
    ['failTerminal', WorkState.failed_terminal, (store, claim) => store.failTerminal(claim, { errorCode: 'bad' })],
    ['parkUnknown', WorkState.unknown, (store, claim) => store.parkUnknown(claim, { errorCode: 'timeout' })],
    ['quarantine', WorkState.quarantined, (store, claim) => store.quarantine(claim, { errorCode: 'schema' })],
  ])('%s parks the item: listed by state and by tenant, gone from the deadline index', async (_name, state, act) => {
    const { identity, claim } = await claimedItem(`tenant-${state.replace('_', '-')}`);
    fixture.clock.advance(2_000);

    await act(fixture.store, claim);

    const item = await expectState(fixture.store, identity, state);
    // Parked keys are sharded by the identity's tenant bucket, the same bucket as the row's partition key.
    const bucket = tenantBucketOf(identity);
    expect(workItemKey(identity).pk).toBe(`${identity.tenantId}#${bucket}`);
    expect(item).toMatchObject({
      parkedState: parkedStateKey(state, bucket),
      parkedTenantState: parkedTenantStateKey(identity.tenantId, bucket, state),
      parkedAt: fixture.clock.now(),
    });
    for (const attribute of DEADLINE) expect(item).not.toHaveProperty(attribute);
    expect(await inParkedIndexes(identity, state, true)).toEqual([true, true]);
    expect(await inDeadlineIndex(identity, false)).toBe(false);
  });

  it('the per-tenant parked index lists only that tenant', async () => {
    const { identity: mine, claim: mineClaim } = await claimedItem('tenant-mine');
    const { identity: theirs, claim: theirsClaim } = await claimedItem('tenant-theirs');
    await fixture.store.parkUnknown(mineClaim, { errorCode: 'timeout' });
    await fixture.store.parkUnknown(theirsClaim, { errorCode: 'timeout' });

    const listed = await eventually(
      () => queryParkedByTenant(fixture.client, tables.jobsTable, 'tenant-mine', WorkState.unknown),
      (found) => found.some(isFor(mine)),
    );

    expect(listed.some(isFor(mine))).toBe(true);
    expect(listed.some(isFor(theirs))).toBe(false);
    expect(listed.every((item) => item.tenantId === 'tenant-mine')).toBe(true);
  });

  it('cancel of a parked item removes it from both parked indexes', async () => {
    const { identity, claim } = await claimedItem('tenant-cancel');
    await fixture.store.parkUnknown(claim, { errorCode: 'timeout' });
    expect(await inParkedIndexes(identity, WorkState.unknown, true)).toEqual([true, true]);

    await fixture.store.cancel(identity, { actor: 'alice', reason: 'not needed' });

    const item = (await expectState(fixture.store, identity, WorkState.cancelled)) as WorkItem;
    for (const attribute of [...PARKED, ...DEADLINE]) expect(item).not.toHaveProperty(attribute);
    expect(await inParkedIndexes(identity, WorkState.unknown, false)).toEqual([false, false]);
  });

  it('cancel of a claimed item removes it from the deadline index', async () => {
    const { identity } = await claimedItem();

    await fixture.store.cancel(identity, { actor: 'alice', reason: 'not needed' });

    expect(await inDeadlineIndex(identity, false)).toBe(false);
  });
});
