import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachingTwin, createDocumentClient } from '../../../lib/aws-clients.js';
import { ManualClock } from '../../../lib/clock.js';
import { FenceRejectedError, OwnershipLostError } from '../../../lib/errors.js';
import { FencedRecords } from '../../../lib/fenced/records.js';
import { payloadHash } from '../../../lib/hashing.js';
import { mapBounded } from '../../../lib/internal/bounded-parallel.js';
import { parseLease } from '../../../lib/store/schemas.js';
import { parseJobOutcome } from '../../../lib/store/transitions.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { createTestTables, engineEndpoints, type TestTables, testDocumentClient } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim, expectRejection } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { countRequests } from '../../support/request-counter.js';

const LEASE = parseLease({ owner: 'twin-worker', leaseMs: 60_000 });

/**
 * A DocumentClient made with `cacheMiddleware: true` sends the store's conditional writes through a twin that
 * resolves the middleware stack once per command type. A cached handler that kept its first request (as a cached
 * DocumentClient command would) writes one job's values into another's row: these tests catch that.
 */
describe('cacheMiddleware: conditional writes through the caching twin', () => {
  let tables: TestTables;
  const cached = createDocumentClient({ endpoint: engineEndpoints().dynamo, cacheMiddleware: true });
  const plain = testDocumentClient();
  // Added before the first write, so it is part of the stack the twin resolves.
  const counter = countRequests(cached);
  const clock = new ManualClock();

  beforeAll(async () => {
    tables = await createTestTables('twin');
  });
  afterAll(async () => {
    cached.destroy();
    plain.destroy();
    await tables.drop();
  });

  it('exists only for a client made with the option, and runs that client’s own middleware stack', () => {
    expect(cachingTwin(plain)).toBeUndefined();
    const twin = cachingTwin(cached);
    expect(twin).toBeDefined();
    expect(twin?.middlewareStack).toBe(cached.middlewareStack);
    expect(twin?.config.requestHandler).toBe(cached.config.requestHandler);
  });

  it('sixty-four jobs claimed and completed concurrently: each row holds its own values, two writes a job', async () => {
    const store = new WorkItemStore({ client: cached, tableName: tables.jobsTable, clock });
    const jobs = Array.from({ length: 64 }, (_, index) => ({ identity: newIdentity('tenant-twin'), index }));
    counter.reset();

    await mapBounded(jobs, 16, async ({ identity, index }) => {
      const claim = expectCreatedClaim(
        await store.enqueue(newWorkItem(identity, { payloadHash: payloadHash({ index }) }), LEASE),
      );
      await store.complete(claim, parseJobOutcome({ outcomeCode: `done-${index}` }));
    });

    expect(counter.byCommand).toEqual({ PutItemCommand: 64, UpdateItemCommand: 64 });
    const reader = new WorkItemStore({ client: plain, tableName: tables.jobsTable, clock });
    for (const { identity, index } of jobs) {
      const row = await reader.get(identity, { consistent: true });
      expect(row).toMatchObject({
        tenantId: identity.tenantId,
        operationId: identity.operationId,
        state: 'succeeded',
        payloadHash: payloadHash({ index }),
        outcomeCode: `done-${index}`,
        fence: 1,
      });
    }
  });

  it('middleware added or removed after the first write reaches the next write (the cached handlers are rebuilt)', async () => {
    const store = new WorkItemStore({ client: cached, tableName: tables.jobsTable, clock });
    const first = newIdentity('tenant-twin');
    await store.complete(
      expectCreatedClaim(await store.enqueue(newWorkItem(first), LEASE)),
      parseJobOutcome({ outcomeCode: 'ok' }),
    );
    const twinBefore = cachingTwin(cached);

    cached.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('engine unreachable (test)'), { name: 'ServiceUnavailable', $fault: 'server' });
      },
      { step: 'finalizeRequest', priority: 'low', name: 'twin-break-engine' },
    );
    const second = newIdentity('tenant-twin');
    await expectRejection(store.enqueue(newWorkItem(second), LEASE), Error);
    expect(cachingTwin(cached)).not.toBe(twinBefore);
    cached.middlewareStack.remove('twin-break-engine');

    expectCreatedClaim(await store.enqueue(newWorkItem(second), LEASE));
    expect(await store.get(second, { consistent: true })).toMatchObject({ state: 'claimed' });
  });

  it('a failed condition still comes back as the current item: a stale holder is refused, the newer one lands', async () => {
    const store = new WorkItemStore({ client: cached, tableName: tables.jobsTable, clock });
    const identity = newIdentity('tenant-twin');
    const stale = expectCreatedClaim(
      await store.enqueue(newWorkItem(identity), parseLease({ ...LEASE, leaseMs: 1_000 })),
    );
    clock.advance(2_000);
    const fresh = expectClaimed(await store.claim(identity, parseLease({ owner: 'second', leaseMs: 60_000 })));

    const record = { tableName: tables.jobsTable, key: { pk: `record#${identity.operationId}`, sk: 'record' } };
    await new FencedRecords({ client: cached, claim: fresh }).put(record, { amountCents: 2 });
    await expectRejection(
      new FencedRecords({ client: cached, claim: stale }).put(record, { amountCents: 1 }),
      FenceRejectedError,
    );
    await expectRejection(store.complete(stale, parseJobOutcome({ outcomeCode: 'stale' })), OwnershipLostError);
    await store.complete(fresh, parseJobOutcome({ outcomeCode: 'fresh' }));

    expect(await store.get(identity, { consistent: true })).toMatchObject({ state: 'succeeded', outcomeCode: 'fresh' });
    const written = await plain.send(
      new GetCommand({ TableName: tables.jobsTable, Key: record.key, ConsistentRead: true }),
    );
    expect(written.Item).toMatchObject({ amountCents: 2, writer_epoch: fresh.fence });
  });
});
