import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { KeyPrefix, TableKeys } from '../table.js';

/*
 * Requests on one tenant's partition keys (tenantPartitionKeys), pure: its work items in any state, paged or
 * tallied, by a Query on the base table, never a Scan. Exact-request unit tests.
 */

/** One page of the work items of one of a tenant's partition keys, optionally filtered by state. */
function buildTenantPageQuery(
  tableName: string,
  partitionKey: string,
  options: { state?: string; limit: number; startKey?: Record<string, unknown> },
): QueryCommandInput {
  const state = options.state;
  return {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ...(state ? { FilterExpression: '#state = :state' } : {}),
    ExpressionAttributeNames: {
      '#pk': TableKeys.partition,
      '#sk': TableKeys.sort,
      ...(state ? { '#state': 'state' } : {}),
    },
    ExpressionAttributeValues: {
      ':pk': partitionKey,
      ':prefix': KeyPrefix.workItem,
      ...(state ? { ':state': state } : {}),
    },
    Limit: options.limit,
    ...(options.startKey ? { ExclusiveStartKey: options.startKey } : {}),
  };
}

/** The states of every work item of one partition key (projection `state` only), from `startKey` on. */
function buildTenantStatesQuery(
  tableName: string,
  partitionKey: string,
  startKey?: Record<string, unknown>,
): QueryCommandInput {
  return {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ProjectionExpression: '#state',
    ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort, '#state': 'state' },
    ExpressionAttributeValues: { ':pk': partitionKey, ':prefix': KeyPrefix.workItem },
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

export { buildTenantPageQuery, buildTenantStatesQuery };
