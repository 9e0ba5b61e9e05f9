import { describe, expect, it } from 'vitest';
import {
  buildOldestParkedQuery,
  buildParkedPageQuery,
  buildParkedShardQuery,
  buildProbeQuery,
} from '../../../lib/store/parked/parked-requests.js';
import { JobsIndex } from '../../../lib/store/table.js';

describe('parked-index requests (exact DynamoDB input)', () => {
  it('reads the single oldest entry of one parked shard, with its read cost', () => {
    expect(buildOldestParkedQuery('jobs', JobsIndex.parkedByState, 'unknown#7')).toEqual({
      TableName: 'jobs',
      IndexName: 'parkedByState',
      KeyConditionExpression: '#state = :state',
      ExpressionAttributeNames: { '#state': 'parkedState' },
      ExpressionAttributeValues: { ':state': 'unknown#7' },
      ScanIndexForward: true,
      Limit: 1,
      ReturnConsumedCapacity: 'TOTAL',
    });
    expect(buildOldestParkedQuery('jobs', JobsIndex.parkedByTenant, 'acme#7#unknown')).toMatchObject({
      IndexName: 'parkedByTenant',
      ExpressionAttributeNames: { '#state': 'parkedTenantState' },
      ExpressionAttributeValues: { ':state': 'acme#7#unknown' },
    });
  });

  it('pages one shard oldest first from a start key, and counts a shard by its partition alone', () => {
    expect(buildParkedPageQuery('jobs', JobsIndex.parkedByTenant, 'acme#3#failed_terminal', 25, { pk: 'a' })).toEqual({
      TableName: 'jobs',
      IndexName: 'parkedByTenant',
      KeyConditionExpression: '#partition = :partition',
      ExpressionAttributeNames: { '#partition': 'parkedTenantState' },
      ExpressionAttributeValues: { ':partition': 'acme#3#failed_terminal' },
      ScanIndexForward: true,
      Limit: 25,
      ExclusiveStartKey: { pk: 'a' },
    });
    expect(buildParkedShardQuery('jobs', JobsIndex.parkedByState, 'quarantined#0')).toEqual({
      TableName: 'jobs',
      IndexName: 'parkedByState',
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': 'parkedState' },
      ExpressionAttributeValues: { ':p': 'quarantined#0' },
    });
  });

  it('probes the table with one Query of a parked key no record has', () => {
    expect(buildProbeQuery('jobs')).toEqual({
      TableName: 'jobs',
      IndexName: 'parkedByState',
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': 'parkedState' },
      ExpressionAttributeValues: { ':p': 'health-check' },
      Limit: 1,
    });
  });
});
