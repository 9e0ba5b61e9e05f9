import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { stableBucket } from '../hashing.js';
import type { JobIdentity } from '../identity.js';

/**
 * The single source of truth for key names, index names and table shapes. The store, the tests, the
 * local stack and the CDK construct all read these; nothing else spells a key name.
 */
const TableKeys = { partition: 'pk', sort: 'sk' } as const;

/** Sort-key prefixes. Ids cannot contain `#`, so a prefix can never be forged by an id. */
const KeyPrefix = { workItem: 'op#', payload: 'payload#', shadow: 'shadow#', checkEvidence: 'check#' } as const;

/**
 * Every tenant a stack check (`leasefence check --stack`) makes starts with this, followed by a random run id: the
 * check's rows can be found by tenant, its cleanup refuses to touch any other tenant's rows, and only its tenants
 * can be named by a fault plan (lib/fault-injection).
 */
const STACK_CHECK_TENANT_PREFIX = 'lfcheck-';

/** Partition of quarantine records for messages that carry no usable identity (`#` is not a tenant char). */
const QUARANTINE_PARTITION_PREFIX = '#quarantine#';

/**
 * Partition prefix of approval records (`#approval#7`, one per tenant bucket): `#` starts no tenant key, so no
 * producer grant reaches it (a tenant scope allows `tenant#*`, a trusted producer `not #*`, the tick its tenants).
 */
const APPROVAL_PARTITION_PREFIX = '#approval#';

/** Partition of audit records for admin actions that concern no single work item (e.g. DLQ redrive). */
const AUDIT_PARTITION = '#audit';

/**
 * Attributes the deadline index carries besides keys: what the sweeper decides on and what `leasefence ls`
 * shows for claimed and queued items. None of them changes while a claim is held (a heartbeat only moves
 * `leaseExpiresAt`, a step only `steps` and `updatedAt`), so holding a lease never writes the index.
 */
const DEADLINE_PROJECTION = [
  'kind',
  'tenantId',
  'operationId',
  'jobType',
  'state',
  'fence',
  'attempts',
  'maxAttempts',
  'availableAt',
  'leaseOwner',
  'createdAt',
  'errorCode',
] as const;

/** Attributes the parked indexes carry besides keys: what the parked listings (admin API, CLI) show. */
const PARKED_PROJECTION = [
  'kind',
  'tenantId',
  'operationId',
  'jobType',
  'state',
  'fence',
  'attempts',
  'maxAttempts',
  'errorCode',
  'errorMessage',
  'finishedAt',
  // Quarantine records only (work rows have none of these): what an operator checks before a redrive.
  'messageId',
  'reason',
  'detail',
  'bodySha256',
  'bodyBytes',
  'receiveCount',
] as const;

/** Partition of the sweeper's own state (where the next run starts); in no index, invisible to tenants. */
const SWEEPER_PARTITION = '#sweeper';

/** Key of the sweeper's cursor row. */
function sweeperCursorKey(): { pk: string; sk: string } {
  return { pk: SWEEPER_PARTITION, sk: 'cursor' };
}

/** Sparse GSIs of the jobs table. Attributes exist only while the item is in the matching states. */
const JobsIndex = {
  /**
   * Items with a deadline, write-sharded: while claimed, the lease expiry as of the claim (heartbeats do not
   * move it; the sweeper checks the real `leaseExpiresAt` inside its conditional write and moves the deadline
   * up to it); while queued, `availableAt`.
   */
  byDeadline: { name: 'byDeadline', partition: 'deadlineShard', sort: 'deadlineAt', projection: DEADLINE_PROJECTION },
  /**
   * Parked items (unknown, quarantined, failed_terminal) across tenants, oldest first within each of a state's
   * TENANT_BUCKETS write shards (`unknown#7`), so mass parking spreads over 16 keys; readers merge the shards.
   */
  parkedByState: { name: 'parkedByState', partition: 'parkedState', sort: 'parkedAt', projection: PARKED_PROJECTION },
  /** Parked items of one tenant in one state, oldest first per shard (`acme#7#unknown`, 16 per tenant and state). */
  parkedByTenant: {
    name: 'parkedByTenant',
    partition: 'parkedTenantState',
    sort: 'parkedAt',
    projection: PARKED_PROJECTION,
  },
} as const;

/**
 * Default number of write shards of the deadline index (each shard is one GSI partition key). A job writes
 * the index twice (claim, completion), so each shard key takes 2 × jobs/s ÷ shards WCU: 32 shards keep it
 * at 625 WCU at 10,000 jobs/s, under the 1,000 WCU of one partition (docs/SCALE.md).
 */
const DEFAULT_DEADLINE_SHARDS = 32;

/**
 * Hash buckets per tenant: a tenant's work items and payloads spread over this many partition keys
 * (`tenant#bucket`), so one tenant at 1,000 jobs/s puts about 125 WCU on each (docs/SCALE.md). A constant
 * of the table format: changing it moves every key, so it is not a setting.
 */
const TENANT_BUCKETS = 16;

/** TTL attribute (epoch seconds) of the payloads table and of quarantine and approval records. */
const TTL_ATTRIBUTE = 'expiresAtEpochSeconds';

/** Tenant bucket (0..TENANT_BUCKETS-1) of an identity: stable forever, the same for its row and its parked keys. */
function tenantBucketOf(identity: JobIdentity): number {
  // Unkeyed and stored in the key, like the deadline shard; its own prefix keeps the two spreads independent.
  // Not memoised: a cache of per-job keys outlives the young generation and costs more in old-space GC than the
  // hash it saves (measured: 13 against 9 full collections over the same run).
  return stableBucket(`partition\u0000${identity.tenantId}\u0000${identity.operationId}`) % TENANT_BUCKETS;
}

/** Partition key of an identity: its tenant and a hash bucket of the whole identity (`acme#7`). */
function identityPartitionKey(identity: JobIdentity): string {
  return tenantBucketKey(identity.tenantId, tenantBucketOf(identity));
}

/**
 * Partition key of bucket `bucket` of a tenant (`'*'`: the IAM pattern of all its buckets). Tenant ids cannot
 * contain `#`, so `tenant#` prefixes only that tenant's keys.
 */
function tenantBucketKey(tenantId: string, bucket: number | '*'): string {
  return `${tenantId}#${bucket}`;
}

/** Primary key of a work item. */
function workItemKey(identity: JobIdentity): { pk: string; sk: string } {
  return { pk: identityPartitionKey(identity), sk: `${KeyPrefix.workItem}${identity.operationId}` };
}

/**
 * Every partition key that can hold a tenant's work items and payloads (its TENANT_BUCKETS buckets): a Query
 * over each (never a Scan) lists a tenant. Callers must not assume one key per tenant.
 */
function tenantPartitionKeys(tenantId: string): string[] {
  return Array.from({ length: TENANT_BUCKETS }, (_, bucket) => tenantBucketKey(tenantId, bucket));
}

/** Primary key of an inline payload body in the payloads table (same partition key as its work item). */
function payloadKey(identity: JobIdentity): { pk: string; sk: string } {
  return { pk: identityPartitionKey(identity), sk: `${KeyPrefix.payload}${identity.operationId}` };
}

/** Primary key of an identity's shadow row (shadow mode: what an existing consumer ran), beside its work item. */
function shadowKey(identity: JobIdentity): { pk: string; sk: string } {
  return { pk: identityPartitionKey(identity), sk: `${KeyPrefix.shadow}${identity.operationId}` };
}

/** Primary key of an identity's approval record (lib/store/approvals/approval-records.ts), beside no tenant key. */
function approvalRecordKey(identity: JobIdentity): { pk: string; sk: string } {
  return {
    pk: `${APPROVAL_PARTITION_PREFIX}${tenantBucketOf(identity)}`,
    sk: `${identity.tenantId}#${identity.operationId}`,
  };
}

/** Primary key of a quarantine record, keyed by the SQS message id. */
function quarantineKey(messageId: string): { pk: string; sk: string } {
  return { pk: `${QUARANTINE_PARTITION_PREFIX}${messageId}`, sk: 'quarantine' };
}

/** Deadline-index shard for an identity: stable, spread evenly, no tenant data in the key. */
function deadlineShardFor(identity: JobIdentity, shards: number): string {
  // Unkeyed on purpose: the shard is part of the stored row, so it may not depend on a deployment's key.
  const bucket = stableBucket(`${identity.tenantId}\u0000${identity.operationId}`);
  return deadlineShardName(bucket % shards);
}

/** Name of deadline shard number `index`. */
function deadlineShardName(index: number): string {
  return `deadline#${index}`;
}

type IndexSpec = {
  readonly name: string;
  readonly partition: string;
  readonly sort: string;
  readonly projection: readonly string[];
};

function gsi(spec: IndexSpec) {
  return {
    IndexName: spec.name,
    KeySchema: [
      { AttributeName: spec.partition, KeyType: 'HASH' as const },
      { AttributeName: spec.sort, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...spec.projection] },
  };
}

/** Both tables share the same string pk/sk key and on-demand billing. */
function keyedTable(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    KeySchema: [
      { AttributeName: TableKeys.partition, KeyType: 'HASH' as const },
      { AttributeName: TableKeys.sort, KeyType: 'RANGE' as const },
    ],
    AttributeDefinitions: [
      { AttributeName: TableKeys.partition, AttributeType: 'S' as const },
      { AttributeName: TableKeys.sort, AttributeType: 'S' as const },
    ],
  };
}

/** CreateTable input of the jobs table (work items, quarantine records, audit records). */
function jobsTableDefinition(tableName: string): CreateTableCommandInput {
  const base = keyedTable(tableName);
  return {
    ...base,
    AttributeDefinitions: [
      ...base.AttributeDefinitions,
      { AttributeName: JobsIndex.byDeadline.partition, AttributeType: 'S' },
      { AttributeName: JobsIndex.byDeadline.sort, AttributeType: 'N' },
      { AttributeName: JobsIndex.parkedByState.partition, AttributeType: 'S' },
      { AttributeName: JobsIndex.parkedByState.sort, AttributeType: 'N' },
      { AttributeName: JobsIndex.parkedByTenant.partition, AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [gsi(JobsIndex.byDeadline), gsi(JobsIndex.parkedByState), gsi(JobsIndex.parkedByTenant)],
  };
}

/** CreateTable input of the payloads table (inline payload bodies, erasable, TTL). */
function payloadsTableDefinition(tableName: string): CreateTableCommandInput {
  return keyedTable(tableName);
}

export {
  APPROVAL_PARTITION_PREFIX,
  AUDIT_PARTITION,
  approvalRecordKey,
  DEFAULT_DEADLINE_SHARDS,
  deadlineShardFor,
  deadlineShardName,
  identityPartitionKey,
  JobsIndex,
  jobsTableDefinition,
  KeyPrefix,
  payloadKey,
  payloadsTableDefinition,
  QUARANTINE_PARTITION_PREFIX,
  quarantineKey,
  STACK_CHECK_TENANT_PREFIX,
  SWEEPER_PARTITION,
  shadowKey,
  sweeperCursorKey,
  TableKeys,
  TENANT_BUCKETS,
  TTL_ATTRIBUTE,
  tenantBucketKey,
  tenantBucketOf,
  tenantPartitionKeys,
  workItemKey,
};
