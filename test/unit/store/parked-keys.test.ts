import { describe, expect, it } from 'vitest';
import {
  parkedKeysOf,
  parkedShards,
  parkedStateKey,
  parkedStateKeys,
  parkedTenantStateKey,
  parkedTenantStateKeys,
  quarantineBucketOf,
  stateOfParkedKey,
} from '../../../lib/store/parked/parked-keys.js';
import { JobsIndex, TENANT_BUCKETS, tenantBucketOf } from '../../../lib/store/table.js';

describe('parked index keys', () => {
  it('carries the shard in both parked keys', () => {
    expect(parkedStateKey('unknown', 7)).toBe('unknown#7');
    expect(parkedTenantStateKey('acme', 7, 'unknown')).toBe('acme#7#unknown');
  });

  it('lists every shard of a state, each once', () => {
    expect(parkedStateKeys('unknown')).toEqual(
      Array.from({ length: TENANT_BUCKETS }, (_, shard) => `unknown#${shard}`),
    );
    const tenantKeys = parkedTenantStateKeys('acme', 'failed_terminal');
    expect(new Set(tenantKeys).size).toBe(TENANT_BUCKETS);
    expect(tenantKeys.every((key) => key.startsWith('acme#') && key.endsWith('#failed_terminal'))).toBe(true);
  });

  it('never gives two tenants (tenant ids hold no #) or two states the same key', () => {
    const keys = ['acme', 'acme1', 'acme-1', 'a'].flatMap((tenant) =>
      ['unknown', 'quarantined', 'failed_terminal'].flatMap((state) => parkedTenantStateKeys(tenant, state)),
    );
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('shards a work item by its tenant bucket, the bucket of its row', () => {
    const identity = { tenantId: 'acme', operationId: 'refund-1' };
    const bucket = tenantBucketOf(identity);

    expect(parkedKeysOf(identity, 'unknown')).toEqual({
      [JobsIndex.parkedByState.partition]: `unknown#${bucket}`,
      [JobsIndex.parkedByTenant.partition]: `acme#${bucket}#unknown`,
    });
  });

  it('shards a quarantine record by a stable bucket of its message id', () => {
    const buckets = new Set<number>();
    for (let index = 0; index < 200; index += 1) {
      const bucket = quarantineBucketOf(`msg-${index}`);
      expect(quarantineBucketOf(`msg-${index}`)).toBe(bucket);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(TENANT_BUCKETS);
      buckets.add(bucket);
    }
    expect(buckets.size).toBeGreaterThan(8);
  });

  it('names the state of a key for views', () => {
    expect(stateOfParkedKey('unknown#7')).toBe('unknown');
    expect(stateOfParkedKey('failed_terminal#15')).toBe('failed_terminal');
    expect(stateOfParkedKey('quarantined')).toBe('quarantined');
  });

  it('reads the cross-tenant index without a tenant and the tenant index with one', () => {
    expect(parkedShards('unknown')).toEqual({ index: JobsIndex.parkedByState, keys: parkedStateKeys('unknown') });
    expect(parkedShards('unknown', 'acme')).toEqual({
      index: JobsIndex.parkedByTenant,
      keys: parkedTenantStateKeys('acme', 'unknown'),
    });
  });
});
