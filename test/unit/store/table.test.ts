import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableBucket } from '../../../lib/hashing.js';
import {
  deadlineShardFor,
  deadlineShardName,
  JobsIndex,
  jobsTableDefinition,
  payloadKey,
  quarantineKey,
  TENANT_BUCKETS,
  tenantBucketOf,
  tenantPartitionKeys,
  workItemKey,
} from '../../../lib/store/table.js';

describe('table keys', () => {
  it('keeps tenant and operation in separate key attributes with a prefixed sort key', () => {
    const identity = { tenantId: 'acme', operationId: 'refund-1' };

    expect(workItemKey(identity)).toEqual({ pk: 'acme#6', sk: 'op#refund-1' });
    expect(payloadKey(identity)).toEqual({ pk: 'acme#6', sk: 'payload#refund-1' });
  });

  it('spreads one tenant over its TENANT_BUCKETS partition keys, stably, and lists them all', () => {
    const keys = tenantPartitionKeys('acme');
    const counts = new Map<string, number>();
    for (let index = 0; index < 1_600; index += 1) {
      const identity = { tenantId: 'acme', operationId: `op-${index}` };
      const { pk } = workItemKey(identity);
      expect(payloadKey(identity).pk).toBe(pk);
      counts.set(pk, (counts.get(pk) ?? 0) + 1);
    }

    expect(keys).toHaveLength(TENANT_BUCKETS);
    expect([...counts.keys()].sort()).toEqual([...keys].sort());
    // 100 per bucket on average; a hash keeps every bucket within a factor of 1.5 of it.
    expect(Math.max(...counts.values())).toBeLessThan(150);
    expect(tenantPartitionKeys('globex').some((key) => keys.includes(key))).toBe(false);
  });

  it('puts quarantine records in a partition no tenant id can spell', () => {
    expect(quarantineKey('msg-1')).toEqual({ pk: '#quarantine#msg-1', sk: 'quarantine' });
  });

  it('spreads identities over every deadline shard, stably', () => {
    const shards = new Set<string>();
    for (let index = 0; index < 400; index += 1) {
      const identity = { tenantId: 'acme', operationId: `op-${index}` };
      const shard = deadlineShardFor(identity, 8);
      expect(deadlineShardFor(identity, 8)).toBe(shard);
      shards.add(shard);
    }

    expect([...shards].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map(deadlineShardName).sort());
  });

  it('derives the partition key from the one tenant-bucket function', () => {
    for (let index = 0; index < 50; index += 1) {
      const identity = { tenantId: 'acme', operationId: `op-${index}` };
      const bucket = tenantBucketOf(identity);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(TENANT_BUCKETS);
      expect(workItemKey(identity).pk).toBe(`acme#${bucket}`);
    }
  });

  it('keeps each identity in the bucket of its hash, however often it is asked', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        (tenantId, operationId) => {
          const expected = stableBucket(`partition\u0000${tenantId}\u0000${operationId}`) % TENANT_BUCKETS;
          expect(tenantBucketOf({ tenantId, operationId })).toBe(expected);
          expect(tenantBucketOf({ tenantId, operationId })).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('declares every sparse index the store writes', () => {
    const definition = jobsTableDefinition('jobs');

    expect(definition.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(
      [JobsIndex.byDeadline.name, JobsIndex.parkedByState.name, JobsIndex.parkedByTenant.name].sort(),
    );
  });
});
