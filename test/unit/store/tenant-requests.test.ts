import { describe, expect, it } from 'vitest';
import { buildTenantPageQuery, buildTenantStatesQuery } from '../../../lib/store/parked/tenant-requests.js';

describe('tenant-partition requests (exact DynamoDB input)', () => {
  it('pages the work items of one partition key, a state as a filter, never a Scan', () => {
    expect(
      buildTenantPageQuery('jobs', 'acme#4', { state: 'succeeded', limit: 100, startKey: { pk: 'acme#4' } }),
    ).toEqual({
      TableName: 'jobs',
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      FilterExpression: '#state = :state',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#state': 'state' },
      ExpressionAttributeValues: { ':pk': 'acme#4', ':prefix': 'op#', ':state': 'succeeded' },
      Limit: 100,
      ExclusiveStartKey: { pk: 'acme#4' },
    });
    expect(buildTenantPageQuery('jobs', 'acme#4', { limit: 10 })).toEqual({
      TableName: 'jobs',
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': 'acme#4', ':prefix': 'op#' },
      Limit: 10,
    });
  });

  it('tallies a partition key reading only the state of each work item', () => {
    expect(buildTenantStatesQuery('jobs', 'acme#0')).toEqual({
      TableName: 'jobs',
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ProjectionExpression: '#state',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#state': 'state' },
      ExpressionAttributeValues: { ':pk': 'acme#0', ':prefix': 'op#' },
    });
  });
});
