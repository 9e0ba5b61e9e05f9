import { describe, expect, it } from 'vitest';
import { buildPseudonymiseRequest } from '../../../lib/store/records/audit-migration.js';
import { buildRawIdAuditQuery } from '../../../lib/store/records/audit-pseudonyms.js';
import { buildQuarantineIdsQuery, eraseQuarantineIdsRequest } from '../../../lib/store/records/quarantine-erasure.js';

/** The exact requests erasure sends for the ids on quarantine and audit records. */
describe('erasure of ids on quarantine and audit records: exact requests', () => {
  it('lists one shard of the tenant’s quarantined listing, quarantine records of the operation only, keys only', () => {
    expect(
      buildQuarantineIdsQuery('jobs', 'acme#3#quarantined', { tenantId: 'acme', operationId: 'op-1' }, 100),
    ).toEqual({
      TableName: 'jobs',
      IndexName: 'parkedByTenant',
      KeyConditionExpression: '#shard = :shard',
      FilterExpression: '#kind = :quarantine AND #tenantId = :tenantId AND #operationId = :operationId',
      ExpressionAttributeNames: {
        '#shard': 'parkedTenantState',
        '#pk': 'pk',
        '#sk': 'sk',
        '#kind': 'kind',
        '#tenantId': 'tenantId',
        '#operationId': 'operationId',
      },
      ExpressionAttributeValues: {
        ':shard': 'acme#3#quarantined',
        ':quarantine': 'quarantine',
        ':tenantId': 'acme',
        ':operationId': 'op-1',
      },
      ProjectionExpression: '#pk, #sk',
      Limit: 100,
    });
  });

  it('removes the ids and the tenant’s parked key of a record still naming the tenant, and stamps when', () => {
    const key = { pk: '#quarantine#m-1', sk: 'quarantine' };
    expect(eraseQuarantineIdsRequest('jobs', key, { tenantId: 'acme' }, 7)).toEqual({
      kind: 'update',
      TableName: 'jobs',
      Key: key,
      UpdateExpression: 'SET #erasedAt = :now REMOVE #tenantId, #operationId, #tenantShard',
      ConditionExpression: '#kind = :quarantine AND #tenantId = :tenantId',
      ExpressionAttributeNames: {
        '#kind': 'kind',
        '#tenantId': 'tenantId',
        '#operationId': 'operationId',
        '#erasedAt': 'idsErasedAt',
        '#tenantShard': 'parkedTenantState',
      },
      ExpressionAttributeValues: { ':quarantine': 'quarantine', ':tenantId': 'acme', ':now': 7 },
    });
  });

  it('finds audit records holding a raw id (any, or naming a tenant), consistently', () => {
    expect(buildRawIdAuditQuery('jobs', 1000)).toMatchObject({
      KeyConditionExpression: '#pk = :pk',
      FilterExpression: 'attribute_exists(#tenantId) OR attribute_exists(#operationId)',
      ExpressionAttributeValues: { ':pk': '#audit' },
      ConsistentRead: true,
    });
    expect(buildRawIdAuditQuery('jobs', 1000, undefined, { tenantId: 'acme' })).toMatchObject({
      FilterExpression: '#tenantId = :tenantId',
      ExpressionAttributeValues: { ':pk': '#audit', ':tenantId': 'acme' },
    });
  });

  it('replaces exactly the raw ids read by their pseudonyms, conditional on them', () => {
    const record = { key: { pk: '#audit', sk: 'audit#x' }, tenantId: 'acme' };
    expect(buildPseudonymiseRequest('jobs', record, (id) => `h(${id})`)).toEqual({
      kind: 'update',
      TableName: 'jobs',
      Key: record.key,
      UpdateExpression: 'SET #tenant = :tenant REMOVE #tenantId',
      ConditionExpression: '#tenantId = :tenantId',
      ExpressionAttributeNames: { '#tenantId': 'tenantId', '#tenant': 'tenant' },
      ExpressionAttributeValues: { ':tenantId': 'acme', ':tenant': 'h(acme)' },
    });
  });
});
