import { describe, expect, it } from 'vitest';
import {
  buildActiveShardQuery,
  buildDeadlineAdvance,
  buildDeadlineQuery,
  buildExpiredClaimsQuery,
  buildResignalUpdate,
  buildShardStateQuery,
  resignalLanded,
} from '../../../lib/store/deadlines/deadline-requests.js';

const NOW = 1_767_225_600_000;

describe('deadline-index requests (exact DynamoDB input)', () => {
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

  it('an active listing page filters by state, tenant and age on one shard, evaluating `limit` rows', () => {
    expect(
      buildActiveShardQuery('jobs', {
        shard: 'deadline#2',
        state: 'queued',
        tenantId: 'acme',
        createdAtOrBefore: NOW - 60_000,
        limit: 100,
        startKey: { pk: 'a' },
      }),
    ).toEqual({
      TableName: 'jobs',
      IndexName: 'byDeadline',
      KeyConditionExpression: '#partition = :partition',
      FilterExpression: '#state = :state AND #tenant = :tenant AND #age <= :cutoff',
      ExpressionAttributeNames: {
        '#partition': 'deadlineShard',
        '#state': 'state',
        '#tenant': 'tenantId',
        '#age': 'createdAt',
      },
      ExpressionAttributeValues: {
        ':state': 'queued',
        ':tenant': 'acme',
        ':cutoff': NOW - 60_000,
        ':partition': 'deadline#2',
      },
      Limit: 100,
      ExclusiveStartKey: { pk: 'a' },
    });
    expect(buildActiveShardQuery('jobs', { shard: 'deadline#0', state: 'claimed', limit: 5 })).toMatchObject({
      FilterExpression: '#state = :state',
      ExpressionAttributeValues: { ':state': 'claimed', ':partition': 'deadline#0' },
    });
  });

  it('counts one shard by state, and the expired claims of one shard, with Queries (never a Scan)', () => {
    expect(buildShardStateQuery('jobs', 'deadline#1', 'claimed')).toEqual({
      TableName: 'jobs',
      IndexName: 'byDeadline',
      KeyConditionExpression: '#p = :p',
      FilterExpression: '#state = :state',
      ExpressionAttributeNames: { '#p': 'deadlineShard', '#state': 'state' },
      ExpressionAttributeValues: { ':p': 'deadline#1', ':state': 'claimed' },
    });
    expect(buildExpiredClaimsQuery('jobs', 'deadline#1', NOW)).toEqual({
      TableName: 'jobs',
      IndexName: 'byDeadline',
      KeyConditionExpression: '#p = :p AND #d < :now',
      FilterExpression: '#state = :claimed',
      ExpressionAttributeNames: { '#p': 'deadlineShard', '#d': 'deadlineAt', '#state': 'state' },
      ExpressionAttributeValues: { ':p': 'deadline#1', ':now': NOW, ':claimed': 'claimed' },
      Select: 'COUNT',
    });
  });
});
