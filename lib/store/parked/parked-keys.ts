import { stableBucket } from '../../hashing.js';
import type { JobIdentity } from '../../identity.js';
import { JobsIndex, TENANT_BUCKETS, tenantBucketOf } from '../table.js';

/*
 * Keys of the parked indexes, write-sharded like the work rows: one key per state (per tenant and state) took
 * every park of that state, so mass parking (an outage parks every job `unknown`) throttled one index key and,
 * by GSI back-pressure, the table. A parked key carries the item's tenant bucket, so a state spreads over
 * TENANT_BUCKETS keys; every reader queries all of them (never a Scan) and merges.
 */

/** Shard reads one parked listing, count or age check keeps in flight (16 shards: two rounds, a bounded burst). */
const PARKED_SHARD_READS_IN_FLIGHT = 8;

/** Key of shard `bucket` of the cross-tenant parked index in `state` (`unknown#7`); readers must query all 16. */
function parkedStateKey(state: string, bucket: number): string {
  return `${state}#${bucket}`;
}

/** Every key of the cross-tenant parked index in `state` (TENANT_BUCKETS shards); one alone lists a sixteenth. */
function parkedStateKeys(state: string): string[] {
  return Array.from({ length: TENANT_BUCKETS }, (_, bucket) => parkedStateKey(state, bucket));
}

/** Key of shard `bucket` of a tenant's parked index in `state` (`acme#7#unknown`); ids without `#` never collide. */
function parkedTenantStateKey(tenantId: string, bucket: number, state: string): string {
  return `${tenantId}#${bucket}#${state}`;
}

/** Every key of one tenant's parked index in `state` (TENANT_BUCKETS shards); one alone lists a sixteenth. */
function parkedTenantStateKeys(tenantId: string, state: string): string[] {
  return Array.from({ length: TENANT_BUCKETS }, (_, bucket) => parkedTenantStateKey(tenantId, bucket, state));
}

/** The state a cross-tenant parked key names (`unknown#7` ▶ `unknown`); a key without a shard is returned as is. */
function stateOfParkedKey(key: string): string {
  const shard = key.lastIndexOf('#');
  return shard < 0 ? key : key.slice(0, shard);
}

/** Parked shard of a quarantine record (no identity): stable per message id, so a rewrite keeps its keys. */
function quarantineBucketOf(messageId: string): number {
  return stableBucket(`quarantine\u0000${messageId}`) % TENANT_BUCKETS;
}

/** The parked-index key attributes of a record in shard `bucket` (the tenant's key only when a tenant is known). */
function parkedKeyAttributes(state: string, bucket: number, tenantId?: string): Record<string, string> {
  return {
    [JobsIndex.parkedByState.partition]: parkedStateKey(state, bucket),
    ...(tenantId !== undefined
      ? { [JobsIndex.parkedByTenant.partition]: parkedTenantStateKey(tenantId, bucket, state) }
      : {}),
  };
}

/** The parked-index keys of a work item: its identity's tenant bucket, the same bucket as its row's key. */
function parkedKeysOf(identity: JobIdentity, state: string): Record<string, string> {
  return parkedKeyAttributes(state, tenantBucketOf(identity), identity.tenantId);
}

/** One of the two parked indexes. */
type ParkedIndex = typeof JobsIndex.parkedByState | typeof JobsIndex.parkedByTenant;

/** The index and every shard key a parked listing of `state` reads (per tenant when `tenantId` is given). */
function parkedShards(state: string, tenantId?: string): { index: ParkedIndex; keys: string[] } {
  return tenantId === undefined
    ? { index: JobsIndex.parkedByState, keys: parkedStateKeys(state) }
    : { index: JobsIndex.parkedByTenant, keys: parkedTenantStateKeys(tenantId, state) };
}

export {
  PARKED_SHARD_READS_IN_FLIGHT,
  type ParkedIndex,
  parkedKeyAttributes,
  parkedKeysOf,
  parkedShards,
  parkedStateKey,
  parkedStateKeys,
  parkedTenantStateKey,
  parkedTenantStateKeys,
  quarantineBucketOf,
  stateOfParkedKey,
};
