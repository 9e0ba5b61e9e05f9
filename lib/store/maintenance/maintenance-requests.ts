import type {
  GetCommandInput,
  ScanCommandInput,
  TransactWriteCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { sweeperCursorKey, TableKeys } from '../table.js';

/** Key the transaction probe checks; `#` cannot appear in a tenant id, so no work item can ever live there. */
const TRANSACTION_PROBE_KEY = { [TableKeys.partition]: '#capability-probe', [TableKeys.sort]: 'probe' };

/*
 * Requests of the rare whole-table chores, pure: the sweeper's cursor row and the fence scan after a restore.
 * Exact-request unit tests.
 */

/** One consistent read of the sweeper's cursor row. */
function buildSweepCursorRead(tableName: string): GetCommandInput {
  return { TableName: tableName, Key: sweeperCursorKey(), ConsistentRead: true };
}

/**
 * Stores where the next sweep starts (`nextShard`; none: from shard 0), only if nobody stored another position
 * since `seenVersion` was read; the version goes up by one.
 */
function buildSweepCursorUpdate(
  tableName: string,
  seenVersion: number,
  nextShard: number | undefined,
  now: number,
): UpdateCommandInput {
  return {
    TableName: tableName,
    Key: sweeperCursorKey(),
    UpdateExpression:
      nextShard === undefined
        ? 'SET #version = :next, #updatedAt = :now REMOVE #nextShard'
        : 'SET #version = :next, #updatedAt = :now, #nextShard = :shard',
    ConditionExpression: 'attribute_not_exists(#pk) OR attribute_not_exists(#version) OR #version = :seen',
    ExpressionAttributeNames: {
      '#pk': TableKeys.partition,
      '#version': 'version',
      '#updatedAt': 'updatedAt',
      '#nextShard': 'nextShard',
    },
    ExpressionAttributeValues: {
      ':seen': seenVersion,
      ':next': seenVersion + 1,
      ':now': now,
      ...(nextShard === undefined ? {} : { ':shard': nextShard }),
    },
  };
}

/** One page of the fence scan: the identity of every work item (consistent, keys and ids only). */
function buildWorkItemScan(tableName: string, limit: number, startKey?: Record<string, unknown>): ScanCommandInput {
  return {
    TableName: tableName,
    FilterExpression: '#kind = :work',
    ProjectionExpression: '#pk, #sk, tenantId, operationId',
    ExpressionAttributeNames: { '#kind': 'kind', '#pk': TableKeys.partition, '#sk': TableKeys.sort },
    ExpressionAttributeValues: { ':work': 'work' },
    Limit: limit,
    ConsistentRead: true,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

/** One page of whole rows, every kind (consistent): for an audit that must see everything the table holds. */
function buildRowScan(tableName: string, limit: number, startKey?: Record<string, unknown>): ScanCommandInput {
  return {
    TableName: tableName,
    Limit: limit,
    ConsistentRead: true,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

/** A transaction of one ConditionCheck on a key no row uses: it writes nothing, and only a transactional engine runs it. */
function buildTransactionProbe(tableName: string): TransactWriteCommandInput {
  return {
    TransactItems: [
      {
        ConditionCheck: {
          TableName: tableName,
          Key: TRANSACTION_PROBE_KEY,
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': TableKeys.partition },
        },
      },
    ],
  };
}

export { buildRowScan, buildSweepCursorRead, buildSweepCursorUpdate, buildTransactionProbe, buildWorkItemScan };
