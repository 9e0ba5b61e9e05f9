import type { CreateTableCommandInput, KeySchemaElement } from '@aws-sdk/client-dynamodb';
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { jobsTableDefinition, payloadsTableDefinition, TTL_ATTRIBUTE } from '../../lib/store/index.js';
import { cdkWarmThroughput, type WarmThroughputSettings, type WarmUnits } from './warm-throughput.js';

/** How a table is kept (the construct defaults to RETAIN with deletion protection on), its TTL and its key. */
interface TableOptions {
  removalPolicy: RemovalPolicy;
  deletionProtection: boolean;
  timeToLiveAttribute?: string;
  /** Customer-managed key; without it the table uses the AWS-managed key (alias/aws/dynamodb). */
  encryptionKey?: kms.IKey;
  /** Warm throughput of the table and, by index name, of its indexes (checked by checkWarmThroughput). */
  warmThroughput?: { table?: WarmUnits; indexes?: Readonly<Record<string, WarmUnits | undefined>> };
}

const ATTRIBUTE_TYPES: Record<string, dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
  B: dynamodb.AttributeType.BINARY,
};

const PROJECTIONS: Record<string, dynamodb.ProjectionType> = {
  ALL: dynamodb.ProjectionType.ALL,
  KEYS_ONLY: dynamodb.ProjectionType.KEYS_ONLY,
  INCLUDE: dynamodb.ProjectionType.INCLUDE,
};

/** Resolves a key element of the definition to a CDK attribute, typed by the definition's AttributeDefinitions. */
function attribute(definition: CreateTableCommandInput, name: string | undefined): dynamodb.Attribute {
  const declared = definition.AttributeDefinitions?.find((candidate) => candidate.AttributeName === name);
  const type = declared?.AttributeType ? ATTRIBUTE_TYPES[declared.AttributeType] : undefined;
  if (!name || !type)
    throw new Error(`table definition ${definition.TableName} does not declare key attribute ${name}`);
  return { name, type };
}

/** Partition and optional sort key of a key schema. */
function keys(definition: CreateTableCommandInput, schema: KeySchemaElement[] | undefined) {
  const hash = schema?.find((element) => element.KeyType === 'HASH');
  const range = schema?.find((element) => element.KeyType === 'RANGE');
  return {
    partitionKey: attribute(definition, hash?.AttributeName),
    ...(range ? { sortKey: attribute(definition, range.AttributeName) } : {}),
  };
}

/**
 * A table built from a CreateTable definition (keys, attribute types, sparse GSIs), so the deployed table
 * and the local engines share one source of truth: on-demand, point-in-time recovery, KMS encryption
 * (customer-managed `encryptionKey`, else AWS-managed), optional TTL.
 */
function tableFromDefinition(
  scope: Construct,
  id: string,
  definition: CreateTableCommandInput,
  options: TableOptions,
): dynamodb.Table {
  if (definition.BillingMode !== 'PAY_PER_REQUEST')
    throw new Error(`${id}: only PAY_PER_REQUEST definitions are supported`);
  if (definition.LocalSecondaryIndexes?.length) throw new Error(`${id}: local secondary indexes are not supported`);
  const table = new dynamodb.Table(scope, id, {
    ...keys(definition, definition.KeySchema),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: options.deletionProtection,
    removalPolicy: options.removalPolicy,
    ...(options.encryptionKey
      ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: options.encryptionKey }
      : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
    ...(options.timeToLiveAttribute ? { timeToLiveAttribute: options.timeToLiveAttribute } : {}),
    ...warmOption(options.warmThroughput?.table),
  });
  for (const index of definition.GlobalSecondaryIndexes ?? []) {
    const projection = PROJECTIONS[index.Projection?.ProjectionType ?? 'ALL'];
    if (!index.IndexName || !projection) throw new Error(`${id}: index ${index.IndexName} has no name or projection`);
    table.addGlobalSecondaryIndex({
      ...warmOption(options.warmThroughput?.indexes?.[index.IndexName]),
      indexName: index.IndexName,
      ...keys(definition, index.KeySchema),
      projectionType: projection,
      ...(index.Projection?.NonKeyAttributes ? { nonKeyAttributes: index.Projection.NonKeyAttributes } : {}),
    });
  }
  return table;
}

/** `{ warmThroughput }` for a table or index that has one, nothing otherwise (DynamoDB's initial throughput). */
function warmOption(entry: WarmUnits | undefined): { warmThroughput?: dynamodb.WarmThroughput } {
  const warmThroughput = cdkWarmThroughput(entry);
  return warmThroughput ? { warmThroughput } : {};
}

/**
 * The jobs table (work items, quarantine and audit records) and the payloads table (erasable bodies), each
 * table and index warmed as `warm` says (validated by the caller with checkWarmThroughput).
 */
function createTables(
  scope: Construct,
  kept: Omit<TableOptions, 'warmThroughput'>,
  warm: WarmThroughputSettings = {},
): { jobs: dynamodb.Table; payloads: dynamodb.Table } {
  const options = { ...kept, timeToLiveAttribute: TTL_ATTRIBUTE };
  const jobsWarm = { ...(warm.jobsTable ? { table: warm.jobsTable } : {}), indexes: warm.jobsIndexes ?? {} };
  const payloadsWarm = warm.payloadsTable ? { table: warm.payloadsTable } : {};
  return {
    jobs: tableFromDefinition(scope, 'JobsTable', jobsTableDefinition('JobsTable'), {
      ...options,
      warmThroughput: jobsWarm,
    }),
    payloads: tableFromDefinition(scope, 'PayloadsTable', payloadsTableDefinition('PayloadsTable'), {
      ...options,
      warmThroughput: payloadsWarm,
    }),
  };
}

/** ARN of a global secondary index of a table (IAM resource for Query on that index only). */
function indexArn(table: dynamodb.ITable, indexName: string): string {
  return `${table.tableArn}/index/${indexName}`;
}

export { createTables, indexArn, type TableOptions, tableFromDefinition };
