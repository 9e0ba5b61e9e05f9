import { describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import {
  buildAcquireRequest,
  buildReleaseRequest,
  buildRenewRequest,
  buildWakeWaitingRow,
  slotPartition,
} from '../../../lib/store/flow-control/slot-requests.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';

const identity = parseIdentity({ tenantId: 'acme', operationId: 'op-1' });
const claim = { identity, jobType: 'sync', fence: 4, claimId: 'claim-4' } as unknown as Claim;

describe('slot partitions', () => {
  it('start with # (no tenant key, no producer grant) and never hold the payload-derived key itself', () => {
    expect(slotPartition('sync', { kind: 'type' })).toBe('#slot#sync#type');
    expect(slotPartition('sync', { kind: 'tenant', tenantId: 'acme' })).toBe('#slot#sync#tenant#acme');
    const keyed = slotPartition('sync', { kind: 'key', tenantId: 'acme', key: 'account-secret-42' });
    expect(keyed).toMatch(/^#slot#sync#key#acme#[0-9a-f]{32}$/);
    expect(keyed).not.toContain('account-secret-42');
    expect(slotPartition('sync', { kind: 'key', tenantId: 'other', key: 'account-secret-42' })).not.toBe(keyed);
  });
});

describe('slot requests decide inside the write', () => {
  it('acquire: only a free slot, one whose lease expired before now, or one an earlier or this claim of the same job holds', () => {
    const request = buildAcquireRequest('jobs', '#slot#sync#type', 3, { claim, leaseExpiresAt: 5_000 }, 1_000);

    expect(request.Item).toMatchObject({
      pk: '#slot#sync#type',
      sk: 'slot#0003',
      tenantId: 'acme',
      operationId: 'op-1',
      fence: 4,
      claimId: 'claim-4',
      leaseExpiresAt: 5_000,
    });
    expect(request.ConditionExpression).toBe(
      'attribute_not_exists(#pk) OR #leaseExpiresAt < :v1 OR (#tenantId = :v2 AND #operationId = :v3 AND #fence <= :v4)',
    );
    expect(request.ExpressionAttributeValues).toEqual({ ':v1': 1_000, ':v2': 'acme', ':v3': 'op-1', ':v4': 4 });
    expect(request.ReturnValues).toBe('ALL_OLD');
  });

  it('renew and release: only while this claim holds the slot', () => {
    const key = { pk: '#slot#sync#type', sk: 'slot#0003' };
    const renew = buildRenewRequest('jobs', key, { claim, leaseExpiresAt: 9_000 });
    const release = buildReleaseRequest('jobs', key, 'claim-4');

    expect(renew.ConditionExpression).toBe('#claimId = :v3');
    expect(renew.ExpressionAttributeValues).toMatchObject({ ':v1': 9_000, ':v3': 'claim-4' });
    expect(release.ConditionExpression).toBe('#claimId = :v1');
    expect(release.ExpressionAttributeValues).toEqual({ ':v1': 'claim-4' });
  });

  it('a wake makes the row due only while it is queued, waiting for a slot, under the fence the waiter recorded', () => {
    const waiter = {
      pk: '#slot#sync#type',
      sk: 'wait#1#acme#op-1',
      tenantId: 'acme',
      operationId: 'op-1',
      jobType: 'sync',
      fence: 4,
      payloadHash: 'h',
      payloadInline: true,
      waitingSince: 1,
    };

    const request = buildWakeWaitingRow('jobs', waiter, 2_000);

    expect(request.ConditionExpression).toBe('#state = :v4 AND #fence = :v5 AND #errorCode = :v6');
    expect(request.ExpressionAttributeValues).toEqual({
      ':v1': 2_000,
      ':v2': 2_000,
      ':v3': 2_000,
      ':v4': 'queued',
      ':v5': 4,
      ':v6': 'concurrency_wait',
    });
  });
});
