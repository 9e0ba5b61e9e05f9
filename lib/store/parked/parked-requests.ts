import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { JobsIndex } from '../table.js';
import type { ParkedIndex } from './parked-keys.js';

/*
 * Requests on the parked indexes, pure: one shard's page, count or oldest entry, and the health probe. Every
 * reader of a parked state queries all of its shards (parkedShards) and merges. Exact-request unit tests.
 */

/** Every entry of one shard of a parked index (counted or paged by the caller). */
function buildParkedShardQuery(tableName: string, index: ParkedIndex, shardKey: string): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: index.name,
    KeyConditionExpression: '#p = :p',
    ExpressionAttributeNames: { '#p': index.partition },
    ExpressionAttributeValues: { ':p': shardKey },
  };
}

/**
 * The oldest entry of one shard of a parked index (one item, ascending parkedAt): the unknown-age alarm's
 * input and the counts' oldest parked time.
 */
function buildOldestParkedQuery(tableName: string, index: ParkedIndex, shardKey: string): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: index.name,
    KeyConditionExpression: '#state = :state',
    ExpressionAttributeNames: { '#state': index.partition },
    ExpressionAttributeValues: { ':state': shardKey },
    ScanIndexForward: true,
    Limit: 1,
    ReturnConsumedCapacity: 'TOTAL',
  };
}

/** One page of one parked shard, oldest first, from `startKey` on. */
function buildParkedPageQuery(
  tableName: string,
  index: ParkedIndex,
  shardKey: string,
  limit: number,
  startKey?: Record<string, unknown>,
): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: index.name,
    KeyConditionExpression: '#partition = :partition',
    ExpressionAttributeNames: { '#partition': index.partition },
    ExpressionAttributeValues: { ':partition': shardKey },
    ScanIndexForward: true,
    Limit: limit,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

/** The health probe: a one-item Query of a parked-index key no record has (proves the table and index answer). */
function buildProbeQuery(tableName: string): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: JobsIndex.parkedByState.name,
    KeyConditionExpression: '#p = :p',
    ExpressionAttributeNames: { '#p': JobsIndex.parkedByState.partition },
    ExpressionAttributeValues: { ':p': 'health-check' },
    Limit: 1,
  };
}

export { buildOldestParkedQuery, buildParkedPageQuery, buildParkedShardQuery, buildProbeQuery };
