import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { FenceRejectedError, OwnershipLostError } from '../../../lib/errors.js';
import { FencedRecords } from '../../../lib/fenced/records.js';
import { payloadHash } from '../../../lib/hashing.js';
import { mapBounded } from '../../../lib/internal/bounded-parallel.js';
import { createHandlerClients, type HandlerClients } from '../../../lib/lambda/clients.js';
import { parseLease } from '../../../lib/store/schemas.js';
import { parseJobOutcome } from '../../../lib/store/transitions.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { createTestTables, type TestTables, testDocumentClient, testHandlerConfig } from '../../support/engine.js';
import { expectClaimed, expectCreatedClaim, expectRejection } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { countRequests } from '../../support/request-counter.js';

const LEASE = parseLease({ owner: 'handler-worker', leaseMs: 60_000 });
/** The configuration names queues; these tests never send to them. */
const UNUSED_QUEUE = {
  queueUrl: 'http://127.0.0.1:1/000000000000/unused',
  dlqUrl: 'http://127.0.0.1:1/000000000000/dlq',
};

/**
 * The clients every Lambda handler builds (lib/lambda/clients.ts): one DocumentClient whose middleware stack runs
 * every request, the store's plain conditional writes included. A client that reused one resolved handler per
 * command type (the SDK's cacheMiddleware) would break the last test; one that kept its first request's input
 * (a cached DocumentClient command) would write one job's values into another's row and break the first.
 */
describe('the handlers’ DynamoDB client: every store write runs the client’s own middleware stack', () => {
  let tables: TestTables;
  let clients: HandlerClients;
  const clock = new ManualClock();
  const reader = testDocumentClient();

  beforeAll(async () => {
    tables = await createTestTables('handler-clients');
    clients = createHandlerClients(testHandlerConfig(tables, UNUSED_QUEUE), clock);
  });
  afterAll(async () => {
    clients.client.destroy();
    reader.destroy();
    await tables.drop();
  });

  it('sixty-four jobs claimed and completed concurrently: each row holds its own values, two writes a job', async () => {
    const counter = countRequests(clients.client);
    const jobs = Array.from({ length: 64 }, (_, index) => ({ identity: newIdentity('tenant-handler'), index }));

    await mapBounded(jobs, 16, async ({ identity, index }) => {
      const claim = expectCreatedClaim(
        await clients.store.enqueue(newWorkItem(identity, { payloadHash: payloadHash({ index }) }), LEASE),
      );
      await clients.store.complete(claim, parseJobOutcome({ outcomeCode: `done-${index}` }));
    });

    // One read of the fence epoch, shared by the sixty-four creations of a cold store.
    expect(counter.byCommand).toEqual({ GetItemCommand: 1, PutItemCommand: 64, UpdateItemCommand: 64 });
    counter.detach();
    const check = new WorkItemStore({ client: reader, tableName: tables.jobsTable, clock });
    for (const { identity, index } of jobs) {
      expect(await check.get(identity, { consistent: true })).toMatchObject({
        tenantId: identity.tenantId,
        operationId: identity.operationId,
        state: 'succeeded',
        payloadHash: payloadHash({ index }),
        outcomeCode: `done-${index}`,
        fence: 1,
      });
    }
  });

  it('a failed condition still comes back as the current item: a stale holder is refused, the newer one lands', async () => {
    const { client, store } = clients;
    const identity = newIdentity('tenant-handler');
    const stale = expectCreatedClaim(
      await store.enqueue(newWorkItem(identity), parseLease({ ...LEASE, leaseMs: 1_000 })),
    );
    clock.advance(2_000);
    const fresh = expectClaimed(await store.claim(identity, parseLease({ owner: 'second', leaseMs: 60_000 })));

    const record = { tableName: tables.jobsTable, key: { pk: `record#${identity.operationId}`, sk: 'record' } };
    await new FencedRecords({ client, claim: fresh }).put(record, { amountCents: 2 });
    await expectRejection(
      new FencedRecords({ client, claim: stale }).put(record, { amountCents: 1 }),
      FenceRejectedError,
    );
    await expectRejection(store.complete(stale, parseJobOutcome({ outcomeCode: 'stale' })), OwnershipLostError);
    await store.complete(fresh, parseJobOutcome({ outcomeCode: 'fresh' }));

    expect(await store.get(identity, { consistent: true })).toMatchObject({ state: 'succeeded', outcomeCode: 'fresh' });
    const written = await reader.send(
      new GetCommand({ TableName: tables.jobsTable, Key: record.key, ConsistentRead: true }),
    );
    expect(written.Item).toMatchObject({ amountCents: 2, writer_epoch: fresh.fence });
  });

  it('an observer or a fault added after the client’s first writes reaches the store’s next write, and its removal too', async () => {
    const { client, store } = clients;
    const first = newIdentity('tenant-handler');
    await store.complete(
      expectCreatedClaim(await store.enqueue(newWorkItem(first), LEASE)),
      parseJobOutcome({ outcomeCode: 'ok' }),
    );

    const observer = countRequests(client);
    client.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('engine unreachable (test)'), { name: 'ServiceUnavailable', $fault: 'server' });
      },
      { step: 'finalizeRequest', priority: 'low', name: 'late-break-engine' },
    );
    const second = newIdentity('tenant-handler');
    await expectRejection(store.enqueue(newWorkItem(second), LEASE), Error);
    expect(observer.byCommand.PutItemCommand).toBeGreaterThanOrEqual(1);
    client.middlewareStack.remove('late-break-engine');

    const claim = expectCreatedClaim(await store.enqueue(newWorkItem(second), LEASE));
    await store.complete(claim, parseJobOutcome({ outcomeCode: 'ok' }));
    expect(await store.get(second, { consistent: true })).toMatchObject({ state: 'succeeded' });
    expect(observer.byCommand.UpdateItemCommand).toBe(1);
    observer.detach();
  });
});
