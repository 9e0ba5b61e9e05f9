import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { stableBucket } from './hashing.js';
import type { JobIdentity } from './identity.js';

/**
 * The single source of truth for key names, index names and table shapes. The store, the tests, the
 * local stack and the CDK construct all read these; nothing else spells a key name.
 */
const TableKeys = { partition: 'pk', sort: 'sk' } as const;

/** Sort-key prefixes. Ids cannot contain `#`, so a prefix can never be forged by an id. */
const KeyPrefix = { workItem: 'op#', payload: 'payload#' } as const;

/** Partition of quarantine records for messages that carry no usable identity (`#` is not a tenant char). */
const QUARANTINE_PARTITION_PREFIX = '#quarantine#';

/** Partition of audit records for admin actions that concern no single work item (e.g. DLQ redrive). */
const AUDIT_PARTITION = '#audit';

/** Partition of the sweeper's own state (where the next run starts); in no index, invisible to tenants. */
const SWEEPER_PARTITION = '#sweeper';

/** Key of the sweeper's cursor row. */
function sweeperCursorKey(): { pk: string; sk: string } {
  return { pk: SWEEPER_PARTITION, sk: 'cursor' };
}

/** Sparse GSIs of the jobs table. Attributes exist only while the item is in the matching states. */
const JobsIndex = {
  /** Items with a deadline: lease expiry while claimed, `availableAt` while queued. Write-sharded. */
  byDeadline: { name: 'byDeadline', partition: 'deadlineShard', sort: 'deadlineAt' },
  /** Parked items (unknown, quarantined, failed_terminal) across tenants, oldest first. */
  parkedByState: { name: 'parkedByState', partition: 'parkedState', sort: 'parkedAt' },
  /** Parked items of one tenant in one state, oldest first. */
  parkedByTenant: { name: 'parkedByTenant', partition: 'parkedTenantState', sort: 'parkedAt' },
} as const;

/** Default number of write shards of the deadline index (each shard is one GSI partition key). */
const DEFAULT_DEADLINE_SHARDS = 8;

/** TTL attribute (epoch seconds) of the payloads table and of quarantine records. */
const TTL_ATTRIBUTE = 'expiresAtEpochSeconds';

/** Primary key of a work item. */
function workItemKey(identity: JobIdentity): { pk: string; sk: string } {
  return { pk: identity.tenantId, sk: `${KeyPrefix.workItem}${identity.operationId}` };
}

/**
 * Every partition key that can hold a tenant's work items and payloads: a Query over these (never a Scan)
 * lists a tenant. Callers must not assume one key per tenant: the key design may spread a tenant.
 */
function tenantPartitionKeys(tenantId: string): string[] {
  return [tenantId];
}

/** Primary key of an inline payload body in the payloads table. */
function payloadKey(identity: JobIdentity): { pk: string; sk: string } {
  return { pk: identity.tenantId, sk: `${KeyPrefix.payload}${identity.operationId}` };
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

/** Composite partition key of the per-tenant parked index. */
function parkedTenantStateKey(tenantId: string, state: string): string {
  return `${tenantId}#${state}`;
}

type IndexSpec = { readonly name: string; readonly partition: string; readonly sort: string };

function gsi(spec: IndexSpec) {
  return {
    IndexName: spec.name,
    KeySchema: [
      { AttributeName: spec.partition, KeyType: 'HASH' as const },
      { AttributeName: spec.sort, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
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
  AUDIT_PARTITION,
  DEFAULT_DEADLINE_SHARDS,
  deadlineShardFor,
  deadlineShardName,
  JobsIndex,
  jobsTableDefinition,
  KeyPrefix,
  parkedTenantStateKey,
  payloadKey,
  payloadsTableDefinition,
  QUARANTINE_PARTITION_PREFIX,
  quarantineKey,
  SWEEPER_PARTITION,
  sweeperCursorKey,
  TableKeys,
  TTL_ATTRIBUTE,
  tenantPartitionKeys,
  workItemKey,
};
