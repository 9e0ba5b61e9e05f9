import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.js';
import { createDocumentClient } from '../../lib/document-client.js';
import type { SlotLimit } from '../../lib/flow-control/concurrency-limits.js';
import type { SlotStore } from '../../lib/store/flow-control/slots.js';
import { OperatorStore } from '../../lib/store/operator/operator-store.js';
import { claimFixture } from '../support/claim-fixture.js';
import { createTestTables, engineEndpoints, type TestTables } from '../support/engine.js';
import { FaultProxy, requestOn } from '../support/fault-proxy.js';
import { storeFixture } from '../support/store.js';

/**
 * Concurrency slots (issue #42) behind a real loopback fault proxy: a slot write whose response is lost after the
 * engine committed it, a slot write held in the network past its holder's lease, and a lost release. Every decision
 * is the conditional write, so none of these may leave two holders of a one-slot limit or a slot held past its lease.
 */
describe('concurrency slots under network faults', () => {
  const LEASE_MS = 30_000;
  const clock = new ManualClock(5_000_000);
  let tables: TestTables;
  let proxy: FaultProxy;
  let direct: SlotStore;
  const clients: { destroy(): void }[] = [];

  /** A slot store on its own client through the proxy; `sdkAttempts` 1 turns the SDK's retries off. */
  async function slotsThroughProxy(sdkAttempts?: number): Promise<SlotStore> {
    const client = createDocumentClient({
      endpoint: proxy.endpoint,
      ...(sdkAttempts !== undefined ? { maxAttempts: sdkAttempts } : {}),
    });
    clients.push(client);
    return (await new OperatorStore({ client, tableName: tables.jobsTable, clock }).flow()).slots;
  }

  const holder = (op: string) =>
    claimFixture({ tenantId: 'acme', operationId: op, claimId: `claim-${op}`, jobType: 'sync' });
  const limitOf = (key: string): SlotLimit[] => [{ scope: { kind: 'key', tenantId: 'acme', key }, limit: 1 }];
  const slotWrites = (operation: 'PutItem' | 'DeleteItem') => requestOn(operation, tables.jobsTable, '#slot#');

  beforeAll(async () => {
    tables = await createTestTables('slot-faults');
    proxy = await FaultProxy.start(engineEndpoints().dynamo);
    direct = (await storeFixture(tables.jobsTable, { clock }).store.flow()).slots;
  });
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await proxy.stop();
    await tables.drop();
  });

  it('a lost response on the slot write: the SDK sends it again and the same job keeps its one slot, not two', async () => {
    const limits = limitOf('lost-acquire');
    const first = holder('lost-acquire-1');
    const rule = proxy.inject({ match: slotWrites('PutItem'), fault: { kind: 'drop_response' } });

    const grant = await (await slotsThroughProxy()).acquire(first, limits, clock.now() + LEASE_MS);

    expect(rule.hits()).toBe(1);
    // The engine committed the first write; the retry found the slot already this job's and took it again.
    expect(grant).toMatchObject({ granted: true, held: [{ regranted: false }] });
    const partition = direct.partitionOf('sync', limits[0]?.scope ?? { kind: 'type' });
    expect(await direct.usage(partition)).toMatchObject({ inUse: 1, limit: 1 });
    expect(await direct.acquire(holder('lost-acquire-2'), limits, clock.now() + LEASE_MS)).toMatchObject({
      granted: false,
    });
    if (grant.granted) await direct.release(grant.held, first.claimId);
    expect(await direct.usage(partition)).toMatchObject({ inUse: 0 });
  });

  it('a lost response and no retry: the slot the engine committed is held until its lease ends, then re-granted and counted', async () => {
    const limits = limitOf('abandoned');
    const first = holder('abandoned-1');
    proxy.inject({ match: slotWrites('PutItem'), fault: { kind: 'drop_response' } });

    await expect((await slotsThroughProxy(1)).acquire(first, limits, clock.now() + LEASE_MS)).rejects.toThrow();

    // The holder never learnt it holds the slot: nobody else runs inside its lease ...
    expect(await direct.acquire(holder('abandoned-2'), limits, clock.now() + LEASE_MS)).toMatchObject({
      granted: false,
    });
    // ... and the slot does not leak past it: the next job takes it, as a counted re-grant.
    clock.advance(LEASE_MS + 1);
    const next = await direct.acquire(holder('abandoned-3'), limits, clock.now() + LEASE_MS);
    expect(next).toMatchObject({ granted: true, held: [{ regranted: true }] });
    if (next.granted) await direct.release(next.held, 'claim-abandoned-3');
  });

  it('a slot write held in the network until another job holds the slot lands nothing', async () => {
    const limits = limitOf('late');
    const late = holder('late-1');
    const partition = direct.partitionOf('sync', limits[0]?.scope ?? { kind: 'type' });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rule = proxy.inject({ match: slotWrites('PutItem'), fault: { kind: 'hold', release: gate } });
    const lateAcquire = (await slotsThroughProxy(1)).acquire(late, limits, clock.now() + LEASE_MS);
    for (let wait = 0; wait < 500 && rule.pending() === 0; wait += 1) await new Promise((r) => setTimeout(r, 10));
    expect(rule.pending()).toBe(1);

    // Meanwhile the other job takes the free slot; then the held write reaches the engine.
    const other = await direct.acquire(holder('late-2'), limits, clock.now() + LEASE_MS);
    expect(other).toMatchObject({ granted: true });
    release();

    expect(await lateAcquire).toMatchObject({ granted: false });
    expect(await direct.usage(partition)).toMatchObject({ inUse: 1 });
    if (other.granted) await direct.release(other.held, 'claim-late-2');
  });

  it('a lost response on the release: the slot is free once, and the retry frees nothing of the next holder', async () => {
    const limits = limitOf('lost-release');
    const first = holder('lost-release-1');
    const partition = direct.partitionOf('sync', limits[0]?.scope ?? { kind: 'type' });
    const slots = await slotsThroughProxy();
    const grant = await slots.acquire(first, limits, clock.now() + LEASE_MS);
    expect(grant).toMatchObject({ granted: true });
    const rule = proxy.inject({ match: slotWrites('DeleteItem'), fault: { kind: 'drop_response' } });

    if (grant.granted) await slots.release(grant.held, first.claimId);

    expect(rule.hits()).toBe(1);
    expect(await direct.usage(partition)).toMatchObject({ inUse: 0 });
    const next = await direct.acquire(holder('lost-release-2'), limits, clock.now() + LEASE_MS);
    expect(next).toMatchObject({ granted: true, held: [{ regranted: false }] });
    // The first holder's release, sent again late, is conditional on its claim: the next holder keeps its slot.
    if (grant.granted) await slots.release(grant.held, first.claimId);
    expect(await direct.usage(partition)).toMatchObject({ inUse: 1 });
    if (next.granted) await direct.release(next.held, 'claim-lost-release-2');
  });
});
