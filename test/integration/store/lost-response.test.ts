import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStepName } from '../../../lib/fenced/steps.js';
import { WorkState } from '../../../lib/states.js';
import type { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { parseLease, parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim, expectState } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { dropNextResponse } from '../../support/lost-response.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE_MS = 60_000;

/**
 * The engine commits, the response is dropped below the SDK's retry layer, and the SDK sends the same
 * request again. The second attempt fails its condition (the first one changed the item); the store must
 * recognise its own committed write and report success, not lost ownership or a rival's claim.
 */
describe('lost responses retried by the SDK', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('lost');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  async function claimedItem(): Promise<{ identity: ReturnType<typeof newIdentity>; claim: Claim }> {
    const identity = newIdentity();
    const claim = expectCreatedClaim(
      await fixture.store.enqueue(newWorkItem(identity), parseLease({ owner: 'w1', leaseMs: LEASE_MS })),
    );
    return { identity, claim };
  }

  /** Arms the drop, runs `act`, and checks the write was sent exactly twice (commit + retry). */
  async function withDroppedResponse<T>(command: 'PutCommand' | 'UpdateCommand', act: () => Promise<T>): Promise<T> {
    fixture.counter.reset();
    const drop = dropNextResponse(fixture.client, command);
    const result = await act();
    expect(drop.dropped()).toBe(1);
    expect(fixture.counter.byCommand[command.replace('Command', 'ItemCommand')]).toBe(2);
    return result;
  }

  it('complete: reported as success, the item keeps the one committed outcome', async () => {
    const { identity, claim } = await claimedItem();
    fixture.clock.advance(1_000);

    await withDroppedResponse('UpdateCommand', () =>
      fixture.store.complete(claim, parseJobOutcome({ outcomeCode: 'ok', result: { receipt: 'r-1' } })),
    );

    const item = await expectState(fixture.store, identity, WorkState.succeeded);
    expect(item).toMatchObject({ fence: 1, attempts: 1, outcomeCode: 'ok', result: { receipt: 'r-1' } });
    expect(item.finishedAt).toBe(fixture.clock.now());
    expect(item.leaseOwner).toBeUndefined();
  });

  it('create-claimed PutItem: the retry is recognised as my own claim, fence 1, usable to complete', async () => {
    const identity = newIdentity();

    const result = await withDroppedResponse('PutCommand', () =>
      fixture.store.enqueue(newWorkItem(identity), parseLease({ owner: 'w1', leaseMs: LEASE_MS })),
    );

    const claim = expectCreatedClaim(result);
    expect(claim).toMatchObject({ fence: 1, attempt: 1, owner: 'w1' });
    const item = await expectState(fixture.store, identity, WorkState.claimed);
    expect(item.claimId).toBe(claim.claimId);
    await fixture.store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }));
    await expectState(fixture.store, identity, WorkState.succeeded);
  });

  it('claim of a queued item: the retry is my own claim (not "leased") and the fence rose once', async () => {
    const identity = newIdentity();
    await fixture.store.enqueue(newWorkItem(identity));

    const result = await withDroppedResponse('UpdateCommand', () =>
      fixture.store.claim(identity, parseLease({ owner: 'w1', leaseMs: LEASE_MS })),
    );

    const claim = expectClaimed(result);
    expect(claim).toMatchObject({ fence: 1, attempt: 1, owner: 'w1' });
    expect(await fixture.store.get(identity)).toMatchObject({ state: WorkState.claimed, fence: 1, attempts: 1 });
    await fixture.store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }));
    await expectState(fixture.store, identity, WorkState.succeeded);
  });

  it('takeover claim of an expired lease: the retry is my own claim and the fence rose once', async () => {
    const { identity, claim: stale } = await claimedItem();
    fixture.clock.advance(LEASE_MS + 1);

    const result = await withDroppedResponse('UpdateCommand', () =>
      fixture.store.claim(identity, parseLease({ owner: 'w2', leaseMs: LEASE_MS })),
    );

    const claim = expectClaimed(result);
    expect(claim).toMatchObject({ fence: 2, attempt: 2, owner: 'w2' });
    expect(await fixture.store.get(identity)).toMatchObject({ fence: 2, attempts: 2, leaseOwner: 'w2' });
    await expect(fixture.store.complete(stale, parseJobOutcome({ outcomeCode: 'stale' }))).rejects.toThrow(/fence 1/);
  });

  it.each<[string, (store: OperatorStore, claim: Claim) => Promise<unknown>, WorkState]>([
    ['heartbeat', (store, claim) => store.heartbeat(claim, parseLeaseDuration(LEASE_MS * 2)), WorkState.claimed],
    ['failTerminal', (store, claim) => store.failTerminal(claim, { errorCode: 'bad' }), WorkState.failed_terminal],
    [
      'failRetryable',
      (store, claim) => store.failRetryable(claim, { errorCode: 'later', retryDelayMs: 1_000 }),
      WorkState.queued,
    ],
    ['parkUnknown', (store, claim) => store.parkUnknown(claim, { errorCode: 'timeout' }), WorkState.unknown],
    ['quarantine', (store, claim) => store.quarantine(claim, { errorCode: 'schema' }), WorkState.quarantined],
    [
      'recordStep',
      (store, claim) => store.recordStep(claim, parseStepName('charge'), { id: 'ch_1' }),
      WorkState.claimed,
    ],
  ])('%s: reported as success, state as committed', async (_name, act, state) => {
    const { identity, claim } = await claimedItem();

    await withDroppedResponse('UpdateCommand', () => act(fixture.store, claim));

    const item = await expectState(fixture.store, identity, state);
    expect(item.fence).toBe(1);
  });

  it('cancel (operator): reported as the cancelled item, fence raised once, one audit entry', async () => {
    const { identity } = await claimedItem();

    const cancelled = await withDroppedResponse('UpdateCommand', () =>
      fixture.store.cancel(identity, { actor: 'alice', reason: 'customer withdrew' }),
    );

    expect(cancelled).toMatchObject({ state: WorkState.cancelled, fence: 2 });
    const item = await expectState(fixture.store, identity, WorkState.cancelled);
    expect(item.fence).toBe(2);
    expect(item.audit).toHaveLength(1);
  });
});
