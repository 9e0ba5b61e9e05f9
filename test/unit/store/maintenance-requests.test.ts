import { describe, expect, it } from 'vitest';
import {
  buildRowScan,
  buildSweepCursorRead,
  buildSweepCursorUpdate,
  buildTransactionProbe,
  buildWorkItemScan,
} from '../../../lib/store/maintenance/maintenance-requests.js';
import { buildBodyKeysQuery, eraseBodyRequest } from '../../../lib/store/payloads/payload-erasure.js';
import { auditRecord, buildAuditPageQuery, buildAuditPut } from '../../../lib/store/records/audit.js';

const NOW = 1_767_225_600_000;

describe('maintenance requests (exact DynamoDB input)', () => {
  it('reads whole rows page by page, consistently, from where the last page stopped', () => {
    expect(buildRowScan('jobs', 500)).toEqual({ TableName: 'jobs', Limit: 500, ConsistentRead: true });
    expect(buildRowScan('jobs', 2, { pk: 'a', sk: 'b' })).toEqual({
      TableName: 'jobs',
      Limit: 2,
      ConsistentRead: true,
      ExclusiveStartKey: { pk: 'a', sk: 'b' },
    });
  });

  it('probes transactions with one ConditionCheck on a key no work item can use (a # partition)', () => {
    expect(buildTransactionProbe('jobs')).toEqual({
      TransactItems: [
        {
          ConditionCheck: {
            TableName: 'jobs',
            Key: { pk: '#capability-probe', sk: 'probe' },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
          },
        },
      ],
    });
  });

  it('reads the sweeper cursor consistently and stores it only over the version it read', () => {
    expect(buildSweepCursorRead('jobs')).toEqual({
      TableName: 'jobs',
      Key: { pk: '#sweeper', sk: 'cursor' },
      ConsistentRead: true,
    });
    expect(buildSweepCursorUpdate('jobs', 3, 7, NOW)).toEqual({
      TableName: 'jobs',
      Key: { pk: '#sweeper', sk: 'cursor' },
      UpdateExpression: 'SET #version = :next, #updatedAt = :now, #nextShard = :shard',
      ConditionExpression: 'attribute_not_exists(#pk) OR attribute_not_exists(#version) OR #version = :seen',
      ExpressionAttributeNames: {
        '#pk': 'pk',
        '#version': 'version',
        '#updatedAt': 'updatedAt',
        '#nextShard': 'nextShard',
      },
      ExpressionAttributeValues: { ':seen': 3, ':next': 4, ':now': NOW, ':shard': 7 },
    });
    expect(buildSweepCursorUpdate('jobs', 0, undefined, NOW)).toMatchObject({
      UpdateExpression: 'SET #version = :next, #updatedAt = :now REMOVE #nextShard',
      ExpressionAttributeValues: { ':seen': 0, ':next': 1, ':now': NOW },
    });
  });

  it('the fence scan reads only the identities of work items, consistently, one bounded page at a time', () => {
    expect(buildWorkItemScan('jobs', 100, { pk: 'a', sk: 'b' })).toEqual({
      TableName: 'jobs',
      FilterExpression: '#kind = :work',
      ProjectionExpression: '#pk, #sk, tenantId, operationId',
      ExpressionAttributeNames: { '#kind': 'kind', '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':work': 'work' },
      Limit: 100,
      ConsistentRead: true,
      ExclusiveStartKey: { pk: 'a', sk: 'b' },
    });
  });

  it('an audit record is put once under a fresh key and read newest first', () => {
    const record = auditRecord({ actor: 'ops', action: 'redrive', counts: { moved: 2 } }, NOW, 'id-1');
    expect(record).toEqual({
      pk: '#audit',
      sk: `audit#${new Date(NOW).toISOString()}#id-1`,
      kind: 'audit',
      auditId: 'id-1',
      at: NOW,
      actor: 'ops',
      action: 'redrive',
      counts: { moved: 2 },
    });
    expect(buildAuditPut('jobs', record)).toEqual({
      TableName: 'jobs',
      Item: record,
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
    });
    expect(buildAuditPageQuery('jobs', 25)).toEqual({
      TableName: 'jobs',
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': '#audit' },
      ScanIndexForward: false,
      Limit: 25,
    });
  });

  it('payload erasure reads keys of bodies not yet erased, then turns each body into a tombstone once', () => {
    expect(buildBodyKeysQuery('payloads', 'acme#2', 50)).toEqual({
      TableName: 'payloads',
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      FilterExpression: 'attribute_exists(#body)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#body': 'body' },
      ExpressionAttributeValues: { ':pk': 'acme#2', ':prefix': 'payload#' },
      ProjectionExpression: '#pk, #sk',
      Limit: 50,
    });
    // One operation: its exact sort key (an equality: op-1 must never reach op-10), in its own partition key.
    expect(buildBodyKeysQuery('payloads', 'acme#2', 50, undefined, 'op-1')).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND #sk = :prefix',
      ExpressionAttributeValues: { ':pk': 'acme#2', ':prefix': 'payload#op-1' },
    });
    expect(eraseBodyRequest('payloads', { pk: 'acme#2', sk: 'payload#r-1' }, NOW)).toEqual({
      kind: 'update',
      TableName: 'payloads',
      Key: { pk: 'acme#2', sk: 'payload#r-1' },
      UpdateExpression: 'SET #erasedAt = :now REMOVE #body, #ttl',
      ConditionExpression: 'attribute_exists(#body)',
      ExpressionAttributeNames: { '#erasedAt': 'erasedAt', '#body': 'body', '#ttl': 'expiresAtEpochSeconds' },
      ExpressionAttributeValues: { ':now': NOW },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });
});
