import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadHash } from '../../lib/hashing.js';
import { parseIdentity, type ValidIdentity } from '../../lib/identity.js';
import { WorkItemStore } from '../../lib/store/work-item-store.js';
import { parseLease, parseLeaseDuration, parseNewWorkItem } from '../../lib/store/work-items/schemas.js';
import type { Claim } from '../../lib/store/work-items/work-item.js';
import { requestOn } from '../support/fault-proxy.js';
import { createNetworkFixture, type NetworkFixture } from './support/network-fixture.js';
import { type ReliabilityPayload, ReliabilityJobType as Type } from './support/reliability-jobs.js';
import { ReliabilityReport } from './support/report.js';

const LEASE_MS = parseLeaseDuration(5_000);
const plain: ReliabilityPayload = { amount: 3, workMs: 0, pauseAt: 'none', pauseAttempt: 0 };

/** Resolves `release` once a held request sits in the proxy (bounded wait). */
async function whenHeld(pending: () => number): Promise<void> {
  for (let attempt = 0; attempt < 500 && pending() === 0; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(pending()).toBe(1);
}

/**
 * Network faults between worker and engine, injected by a real loopback proxy: a request delayed in the
 * network past a takeover, responses lost after the engine committed, and refused connections.
 */
describe('network faults between the workers and the engine', () => {
  const report = new ReliabilityReport(__filename);
  let fixture: NetworkFixture;
  let jobsTable: string;
  let ledgerTable: string;

  beforeAll(async () => {
    fixture = await createNetworkFixture('rel-net', LEASE_MS);
    jobsTable = fixture.tables.jobsTable;
    ledgerTable = fixture.ledgerTable.tableName;
  });
  afterAll(async () => {
    report.add('faultsInjected', fixture.proxy.faultsInjected());
    await report.publish();
    for (const client of holderClients) client.destroy();
    await fixture.close();
  });

  const newIdentity = (prefix: string): ValidIdentity =>
    parseIdentity({ tenantId: 'net', operationId: `${prefix}-${randomUUID()}` });
  const hold = () => {
    let release: () => void = () => {};
    return { promise: new Promise<void>((resolve) => (release = resolve)), release: () => release() };
  };

  /**
   * A holder's store through the proxy on its own client; with `giveUpAfterMs` the SDK abandons a request after
   * that long and sends it again once (the abandoned one may still be in the network).
   */
  const holderClients: DynamoDBDocumentClient[] = [];
  const holderStore = (giveUpAfterMs?: number) => {
    const plainClient = new DynamoDBClient({
      endpoint: fixture.proxy.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      ...(giveUpAfterMs
        ? { maxAttempts: 2, requestHandler: { requestTimeout: giveUpAfterMs, throwOnRequestTimeout: true } }
        : {}),
    });
    const client = DynamoDBDocumentClient.from(plainClient, { marshallOptions: { removeUndefinedValues: true } });
    holderClients.push(client);
    return new WorkItemStore({ client, tableName: jobsTable, clock: fixture.clock, deadlineShards: 8 });
  };

  /** A claimed work item (fence 1) held by `owner`, created on the direct store. */
  async function claimedBy(identity: ValidIdentity, owner: string): Promise<Claim> {
    const hash = payloadHash(plain);
    const created = await fixture.store.enqueue(
      parseNewWorkItem({ identity, jobType: Type.record, payloadHash: hash, payloadInline: true, maxAttempts: 3 }),
      parseLease({ owner, leaseMs: LEASE_MS }),
    );
    if (created.outcome !== 'created' || !created.claim) throw new Error('expected the item created claimed');
    return created.claim;
  }

  /** Holds the first renewal of `identity` in the network; `landed()` waits until the engine answered it. */
  function holdFirstRenewal(identity: ValidIdentity) {
    const gate = hold();
    const rule = fixture.proxy.inject({
      match: requestOn('UpdateItem', jobsTable, identity.operationId, '"leaseExpiresAt"'),
      fault: { kind: 'hold', release: gate.promise },
    });
    return {
      held: () => whenHeld(rule.pending),
      land: async () => {
        gate.release();
        for (let attempt = 0; attempt < 500 && rule.forwarded() === 0; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(rule.forwarded()).toBe(1);
      },
    };
  }

  it('a renewal delayed in the network lands after a newer renewal: refused, the lease never moves back', async () => {
    const identity = newIdentity('delayed-renewal');
    const first = await claimedBy(identity, 'holder');
    const holder = holderStore(300);
    const delayed = holdFirstRenewal(identity);

    fixture.clock.advance(1_000);
    // The first send sits in the network; the SDK gives up on it and sends the same renewal again, which lands.
    const renewed = await holder.heartbeat(first, LEASE_MS);
    fixture.clock.advance(1_000);
    const newer = await holder.heartbeat(renewed, LEASE_MS);
    await delayed.land();

    const item = await fixture.store.get(identity);
    expect(item).toMatchObject({ state: 'claimed', fence: 1, leaseExpiresAt: newer.leaseExpiresAt });
    // The holder's guard trusts its confirmed lease until newer.leaseExpiresAt: nobody may take over before.
    fixture.clock.set(renewed.leaseExpiresAt + 1);
    expect(await fixture.store.claim(identity, parseLease({ owner: 'taker', leaseMs: LEASE_MS }))).toMatchObject({
      claimed: false,
      reason: 'leased',
    });
  });

  it('a renewal delayed past a takeover is refused: the new holder keeps its lease and fence', async () => {
    const identity = newIdentity('renewal-after-takeover');
    const first = await claimedBy(identity, 'holder');
    const delayed = holdFirstRenewal(identity);
    fixture.clock.advance(1_000);
    const renewal = holderStore()
      .heartbeat(first, LEASE_MS)
      .catch((error: Error) => error.name);
    await delayed.held();

    fixture.clock.advance(LEASE_MS);
    const taken = await fixture.store.claim(identity, parseLease({ owner: 'taker', leaseMs: LEASE_MS }));
    await delayed.land();

    expect(taken).toMatchObject({ claimed: true, claim: { fence: 2 } });
    expect(await renewal).toBe('OwnershipLostError');
    const lease = taken.claimed ? taken.claim.leaseExpiresAt : undefined;
    expect(await fixture.store.get(identity)).toMatchObject({ fence: 2, leaseOwner: 'taker', leaseExpiresAt: lease });
  });

  it('a renewal delayed past its expiry, nothing else on the row: lands with at most the lease it asked for', async () => {
    const identity = newIdentity('renewal-after-expiry');
    const first = await claimedBy(identity, 'holder');
    const delayed = holdFirstRenewal(identity);
    fixture.clock.advance(1_000);
    const askedFor = fixture.clock.now() + LEASE_MS;
    const renewal = holderStore().heartbeat(first, LEASE_MS);
    await delayed.held();
    fixture.clock.advance(LEASE_MS);
    await delayed.land();

    // No server clock: the condition's `now` is the holder's when it sent. The same holder, same fence, gets the
    // lease it asked for and never more (its lease keeper, in doubt since its local deadline, ignores the answer).
    expect(await renewal).toMatchObject({ fence: 1, leaseExpiresAt: askedFor });
    expect(await fixture.store.get(identity)).toMatchObject({
      fence: 1,
      leaseOwner: 'holder',
      leaseExpiresAt: askedFor,
    });
    fixture.clock.set(askedFor + 1);
    expect(await fixture.store.claim(identity, parseLease({ owner: 'taker', leaseMs: LEASE_MS }))).toMatchObject({
      claimed: true,
      claim: { fence: 2 },
    });
  });

  /**
   * Counts what must stay 0 for one operation: a non-final item and more than one effect; replays the row's history
   * (as the engine committed it, behind the faulty network) through the model's step relation.
   */
  async function tally(identity: ValidIdentity): Promise<{ charges: number; calls: number }> {
    const replay = fixture.recorder.replay([identity]);
    report.addReplay(replay);
    expect(replay.illegal).toEqual([]);
    expect(replay.histories).toBe(1);
    expect(fixture.recorder.unrecorded).toEqual({});
    const item = await fixture.store.get(identity);
    if (!item || !['succeeded', 'unknown', 'failed_terminal'].includes(item.state)) report.add('lostJobs');
    const charges = (await fixture.ledger.chargesByOperation('net')).get(identity.operationId)?.length ?? 0;
    const calls = (await fixture.ledger.callsByOperation('net')).get(identity.operationId)?.length ?? 0;
    report.add('duplicateEffects', Math.max(0, charges - 1));
    return { charges, calls };
  }

  it('a fenced record write delayed in the network lands after a newer claim wrote: rejected (seed 001)', async () => {
    const identity = newIdentity('delayed-write');
    const message = await fixture.message(identity, Type.record, plain);
    const gate = hold();
    const held = fixture.proxy.inject({
      match: requestOn('UpdateItem', ledgerTable, 'writer_epoch'),
      fault: { kind: 'hold', release: gate.promise },
    });
    const stale = fixture.worker('slow-network').handleMessage(message);
    await whenHeld(held.pending);
    fixture.clock.advance(LEASE_MS + 1);

    const fresh = await fixture.worker('fresh').handleMessage(message);
    gate.release();
    const late = await stale;

    expect(fresh).toMatchObject({ status: 'executed', fence: 2, result: { state: 'succeeded' } });
    expect(late).toMatchObject({
      status: 'executed',
      fence: 1,
      result: { state: 'ownership_lost', reason: 'fence.rejected' },
    });
    expect(await fixture.record(identity)).toMatchObject({ writtenBy: 'fresh', writer_epoch: 2 });
    expect(await fixture.store.get(identity)).toMatchObject({ state: 'succeeded', fence: 2 });
    await tally(identity);
  });

  it('a completion delayed past a takeover is refused; the new holder reconciled, one charge', async () => {
    const identity = newIdentity('delayed-complete');
    const message = await fixture.message(identity, Type.charge, plain);
    const gate = hold();
    const held = fixture.proxy.inject({
      match: requestOn('UpdateItem', jobsTable, identity.operationId, '"succeeded"'),
      fault: { kind: 'hold', release: gate.promise },
    });
    const stale = fixture.worker('slow-complete').handleMessage(message);
    await whenHeld(held.pending);
    fixture.clock.advance(LEASE_MS + 1);

    const fresh = await fixture.worker('reconciler').handleMessage(message);
    gate.release();
    const late = await stale;

    expect(fresh).toMatchObject({ status: 'executed', fence: 2, result: { state: 'succeeded', reconciled: true } });
    expect(late).toMatchObject({ fence: 1, result: { state: 'ownership_lost', reason: 'ownership.lost' } });
    expect(await tally(identity)).toEqual({ charges: 1, calls: 1 });
  });

  it('a lost completion response is reported as success; a redelivery runs nothing again', async () => {
    const identity = newIdentity('lost-complete');
    const message = await fixture.message(identity, Type.charge, plain);
    const dropped = fixture.proxy.inject({
      match: requestOn('UpdateItem', jobsTable, identity.operationId, '"succeeded"'),
      fault: { kind: 'drop_response' },
    });

    const first = await fixture.worker('retrying-sdk').handleMessage(message);
    const redelivered = await fixture.worker('second').handleMessage(message);

    expect(dropped.hits()).toBe(1);
    expect(first).toMatchObject({ status: 'executed', fence: 1, result: { state: 'succeeded' } });
    expect(redelivered).toMatchObject({ status: 'skipped', reason: 'replay_finished' });
    expect(await fixture.store.get(identity)).toMatchObject({
      state: 'succeeded',
      fence: 1,
      attempts: 1,
    });
    expect(await tally(identity)).toEqual({ charges: 1, calls: 1 });
  });

  it('a lost completion response without SDK retries: the message is redelivered and finds the job done', async () => {
    const identity = newIdentity('lost-complete-no-retry');
    const message = await fixture.message(identity, Type.charge, plain);
    fixture.proxy.inject({
      match: requestOn('UpdateItem', jobsTable, identity.operationId, '"succeeded"'),
      fault: { kind: 'drop_response' },
    });

    const first = await fixture
      .worker('no-retry', 1)
      .handleMessage(message)
      .then(
        () => 'acknowledged',
        (error: Error) => error.name,
      );
    const redelivered = await fixture.worker('second').handleMessage(message);

    expect(first).not.toBe('acknowledged');
    expect(redelivered).toMatchObject({ status: 'skipped', reason: 'replay_finished' });
    expect(await fixture.store.get(identity)).toMatchObject({ state: 'succeeded', fence: 1 });
    expect(await tally(identity)).toEqual({ charges: 1, calls: 1 });
  });

  it('a lost response of the create-and-claim write: the retry is my claim (fence 1), not "leased"', async () => {
    const identity = newIdentity('lost-create');
    const message = await fixture.message(identity, Type.record, plain);
    const dropped = fixture.proxy.inject({
      match: requestOn('PutItem', jobsTable, identity.operationId, '"claimed"'),
      fault: { kind: 'drop_response' },
    });

    const result = await fixture.worker('creator').handleMessage(message);

    expect(dropped.hits()).toBe(1);
    expect(result).toMatchObject({ status: 'executed', fence: 1, result: { state: 'succeeded' } });
    const item = await fixture.store.get(identity);
    expect(item).toMatchObject({ state: 'succeeded', fence: 1, attempts: 1 });
    expect(item?.leaseOwner).toBeUndefined();
    await tally(identity);
  });

  it('a lost response of a claim: the retried claim is mine, the fence rose once, no orphaned lease', async () => {
    const identity = newIdentity('lost-claim');
    await fixture.store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: Type.record,
        payloadHash: payloadHash(plain),
        payloadInline: true,
        maxAttempts: 3,
      }),
    );
    const wake = await fixture.message(identity, Type.record, plain, 'wake');
    const dropped = fixture.proxy.inject({
      match: requestOn('UpdateItem', jobsTable, identity.operationId, '#attempts = #attempts +'),
      fault: { kind: 'drop_response' },
    });

    const result = await fixture.worker('claimer').handleMessage(wake);

    expect(dropped.hits()).toBe(1);
    expect(result).toMatchObject({ status: 'executed', fence: 1, result: { state: 'succeeded' } });
    const item = await fixture.store.get(identity);
    expect(item).toMatchObject({ state: 'succeeded', fence: 1, attempts: 1 });
    expect([item?.leaseOwner, item?.leaseExpiresAt, item?.deadlineAt]).toEqual([undefined, undefined, undefined]);
    await tally(identity);
  });

  it('a claim whose response is lost and not retried leaves a lease that expires: the job is not lost', async () => {
    const identity = newIdentity('lost-claim-no-retry');
    const message = await fixture.message(identity, Type.record, plain);
    fixture.proxy.inject({
      match: requestOn('PutItem', jobsTable, identity.operationId, '"claimed"'),
      fault: { kind: 'drop_response' },
    });

    const first = await fixture
      .worker('gives-up', 1)
      .handleMessage(message)
      .catch((error: Error) => error.name);
    const whileLeased = await fixture.worker('second').handleMessage(message);
    fixture.clock.advance(LEASE_MS + 1);
    const { summary, wakes } = await fixture.sweep();
    const results = await Promise.all(wakes.map((wake) => fixture.worker('after-expiry').handleMessage(wake)));

    expect(typeof first).toBe('string');
    expect(whileLeased).toMatchObject({ status: 'skipped', reason: 'leased' });
    expect(summary.resignalled).toBeGreaterThanOrEqual(1);
    expect(results).toContainEqual(expect.objectContaining({ status: 'executed', fence: 2 }));
    expect(await fixture.store.get(identity)).toMatchObject({
      state: 'succeeded',
      fence: 2,
      attempts: 2,
    });
    await tally(identity);
  });

  it('connections refused at completion: no acknowledgement, and after expiry the job reconciles, one charge', async () => {
    const identity = newIdentity('refused');
    const message = await fixture.message(identity, Type.charge, {
      ...plain,
      pauseAt: 'after-effect',
      pauseAttempt: 1,
    });
    fixture.onCheckpoint = () => fixture.proxy.refuseConnections();

    const first = await fixture
      .worker('cut-off')
      .handleMessage(message)
      .then(
        () => 'acknowledged',
        (error: Error) => error.name,
      );
    fixture.onCheckpoint = async () => {};
    await fixture.proxy.acceptConnections();
    const whileLeased = await fixture.worker('second').handleMessage(message);
    fixture.clock.advance(LEASE_MS + 1);
    const { wakes } = await fixture.sweep();
    const results = await Promise.all(wakes.map((wake) => fixture.worker('after-expiry').handleMessage(wake)));

    expect(first).not.toBe('acknowledged');
    expect(whileLeased).toMatchObject({ status: 'skipped', reason: 'leased' });
    expect(results).toContainEqual(
      expect.objectContaining({ status: 'executed', fence: 2, result: expect.objectContaining({ reconciled: true }) }),
    );
    expect(await fixture.store.get(identity)).toMatchObject({ state: 'succeeded', fence: 2 });
    expect(await tally(identity)).toEqual({ charges: 1, calls: 1 });
  });
});
