import { describe, expect, it } from 'vitest';
import { createDocumentClient, createSqsClient } from '../../../lib/aws-clients.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import {
  buildDeadlineAdvance,
  buildDeadlineQuery,
  buildOldestUnknownQuery,
  buildResignalUpdate,
  liveLeaseExpiry,
  resignalLanded,
} from '../../../lib/sweeper/requests.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { expectRejection } from '../../support/expectations.js';

const NOW = 1_767_225_600_000;

describe('sweeper requests (exact DynamoDB input)', () => {
  it('queries one deadline shard for deadlines before now, oldest first, bounded, never a Scan', () => {
    expect(buildDeadlineQuery('jobs', 'deadline#3', NOW, 25, { pk: 'a' })).toEqual({
      TableName: 'jobs',
      IndexName: 'byDeadline',
      KeyConditionExpression: '#shard = :shard AND #deadline < :now',
      ExpressionAttributeNames: { '#shard': 'deadlineShard', '#deadline': 'deadlineAt' },
      ExpressionAttributeValues: { ':shard': 'deadline#3', ':now': NOW },
      ScanIndexForward: true,
      Limit: 25,
      ReturnConsumedCapacity: 'TOTAL',
      ExclusiveStartKey: { pk: 'a' },
    });
  });

  it('reads the single oldest unknown item of one parked shard', () => {
    expect(buildOldestUnknownQuery('jobs', 'unknown#7')).toMatchObject({
      IndexName: 'parkedByState',
      KeyConditionExpression: '#state = :state',
      ExpressionAttributeValues: { ':state': 'unknown#7' },
      ScanIndexForward: true,
      Limit: 1,
    });
  });

  it('moves only the deadline, conditional on state, fence, deadline and an expired lease', () => {
    const item = { tenantId: 'acme', operationId: 'r-1', state: 'claimed' as const, fence: 4, deadlineAt: NOW - 5 };
    expect(buildResignalUpdate('jobs', item, NOW, NOW + 120_000)).toEqual({
      TableName: 'jobs',
      Key: { pk: 'acme#10', sk: 'op#r-1' },
      UpdateExpression: 'SET #deadlineAt = :v1, #resignalledAt = :v2',
      ConditionExpression: '#state = :v3 AND #fence = :v4 AND #deadlineAt = :v5 AND #leaseExpiresAt < :v6',
      ExpressionAttributeNames: {
        '#deadlineAt': 'deadlineAt',
        '#resignalledAt': 'resignalledAt',
        '#state': 'state',
        '#fence': 'fence',
        '#leaseExpiresAt': 'leaseExpiresAt',
      },
      ExpressionAttributeValues: {
        ':v1': NOW + 120_000,
        ':v2': NOW,
        ':v3': 'claimed',
        ':v4': 4,
        ':v5': NOW - 5,
        ':v6': NOW,
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('a live lease moves the index deadline up to it, conditional on the observed claim and deadline', () => {
    const item = { tenantId: 'acme', operationId: 'r-1', fence: 4, deadlineAt: NOW - 5 };
    const request = buildDeadlineAdvance('jobs', item, NOW + 30_000);

    expect(request.UpdateExpression).toBe('SET #deadlineAt = :v1');
    expect(request.ConditionExpression).toBe('#state = :v2 AND #fence = :v3 AND #deadlineAt = :v4');
    expect(request.ExpressionAttributeValues).toEqual({
      ':v1': NOW + 30_000,
      ':v2': 'claimed',
      ':v3': 4,
      ':v4': NOW - 5,
    });
    const current = { state: 'claimed', fence: 4, deadlineAt: NOW - 5, leaseExpiresAt: NOW + 30_000 };
    expect(liveLeaseExpiry(current, item, NOW)).toBe(NOW + 30_000);
    expect(liveLeaseExpiry({ ...current, leaseExpiresAt: NOW - 1 }, item, NOW)).toBeUndefined();
    expect(liveLeaseExpiry({ ...current, fence: 5 }, item, NOW)).toBeUndefined();
    expect(liveLeaseExpiry({ ...current, deadlineAt: NOW }, item, NOW)).toBeUndefined();
  });

  it('a queued item is re-signalled only while still due', () => {
    const item = { tenantId: 'acme', operationId: 'r-1', state: 'queued' as const, fence: 0, deadlineAt: NOW - 50_000 };
    expect(buildResignalUpdate('jobs', item, NOW, NOW + 1).ConditionExpression).toBe(
      '#state = :v3 AND #fence = :v4 AND #deadlineAt = :v5 AND #availableAt <= :v6',
    );
  });

  it('recognises its own committed re-signal after a retried request, and nothing else', () => {
    const observed = { state: 'claimed' as const, fence: 4 };
    const mine = { state: 'claimed', fence: 4, deadlineAt: NOW + 10, resignalledAt: NOW };
    expect(resignalLanded(mine, observed, NOW, NOW + 10)).toBe(true);
    expect(resignalLanded({ ...mine, fence: 5 }, observed, NOW, NOW + 10)).toBe(false);
    expect(resignalLanded({ ...mine, resignalledAt: NOW - 1 }, observed, NOW, NOW + 10)).toBe(false);
    expect(resignalLanded(undefined, observed, NOW, NOW + 10)).toBe(false);
  });

  it('refuses bad options before any request', async () => {
    const unreachable = { endpoint: 'http://127.0.0.1:9', maxAttempts: 1 };
    const store = new WorkItemStore({ client: createDocumentClient(unreachable), tableName: 'never' });
    const sqs = createSqsClient(unreachable);
    const error = await expectRejection(sweep({ store, sqs, queueUrl: 'x', maxItemsPerRun: 0 }), InvalidInputError);
    expect(error.issues).toEqual([expect.objectContaining({ path: 'maxItemsPerRun' })]);
    await expectRejection(sweep({ store, sqs, queueUrl: 'x', shards: 8, cursor: { shard: -1 } }), InvalidInputError);
  });
});
