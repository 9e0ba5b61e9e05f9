import type { QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { WorkState } from '../states.js';
import { ExpressionBuilder } from '../store/expressions.js';
import { JobsIndex, workItemKey } from '../store/table.js';
import type { WorkItem } from '../store/work-item.js';

/** One page of a deadline shard: items whose deadline has passed, oldest first. Never a Scan. */
function buildDeadlineQuery(
  tableName: string,
  shard: string,
  now: number,
  limit: number,
  exclusiveStartKey?: Record<string, unknown>,
): QueryCommandInput {
  const index = JobsIndex.byDeadline;
  return {
    TableName: tableName,
    IndexName: index.name,
    KeyConditionExpression: '#shard = :shard AND #deadline < :now',
    ExpressionAttributeNames: { '#shard': index.partition, '#deadline': index.sort },
    ExpressionAttributeValues: { ':shard': shard, ':now': now },
    ScanIndexForward: true,
    Limit: limit,
    ReturnConsumedCapacity: 'TOTAL',
    ...(exclusiveStartKey ? { ExclusiveStartKey: exclusiveStartKey } : {}),
  };
}

/** The oldest item parked as unknown in one shard of the parked index (one item): the age alarm's input. */
function buildOldestUnknownQuery(tableName: string, shardKey: string): QueryCommandInput {
  const index = JobsIndex.parkedByState;
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

/**
 * Before a wake-up is sent, the item's deadline moves to `nextDeadlineAt`, conditional on the state, fence
 * and deadline the sweeper observed (plus "lease expired" for a claim, "due" for a queued item). This is the
 * re-signal dedup: while the wake-up is in flight the item is out of the swept range, so each item gets at
 * most one wake-up per interval. Only `deadlineAt` moves: the claim condition reads `leaseExpiresAt` and
 * `availableAt`, so claimability is unchanged, and a failed condition means someone else moved the item.
 */
function buildResignalUpdate(
  tableName: string,
  item: Pick<WorkItem, 'tenantId' | 'operationId' | 'state' | 'fence' | 'deadlineAt'>,
  now: number,
  nextDeadlineAt: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const update = x.update({ deadlineAt: nextDeadlineAt, resignalledAt: now });
  const conditions = [
    `${x.name('state')} = ${x.value(item.state)}`,
    `${x.name('fence')} = ${x.value(item.fence)}`,
    `${x.name('deadlineAt')} = ${x.value(item.deadlineAt)}`,
  ];
  if (item.state === WorkState.claimed) conditions.push(`${x.name('leaseExpiresAt')} < ${x.value(now)}`);
  if (item.state === WorkState.queued) conditions.push(`${x.name('availableAt')} <= ${x.value(now)}`);
  return {
    TableName: tableName,
    Key: workItemKey({ tenantId: item.tenantId, operationId: item.operationId }),
    UpdateExpression: update,
    ConditionExpression: conditions.join(' AND '),
    ...x.attributes(),
    // The wake-up is built from the row (payload binding), which the index does not carry: no extra read.
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** True when a failed re-signal condition is in fact our own earlier attempt (an SDK retry after a lost response). */
function resignalLanded(
  current: Record<string, unknown> | undefined,
  observed: Pick<WorkItem, 'state' | 'fence'>,
  now: number,
  nextDeadlineAt: number,
): boolean {
  return (
    current !== undefined &&
    current.state === observed.state &&
    current.fence === observed.fence &&
    current.deadlineAt === nextDeadlineAt &&
    current.resignalledAt === now
  );
}

/**
 * The real lease expiry when `current` is the claim the sweeper observed (same fence, same index deadline)
 * and heartbeats kept its lease alive; undefined otherwise.
 */
function liveLeaseExpiry(
  current: Record<string, unknown> | undefined,
  observed: Pick<WorkItem, 'fence' | 'deadlineAt'>,
  now: number,
): number | undefined {
  if (current === undefined || current.state !== WorkState.claimed || current.fence !== observed.fence) return;
  if (current.deadlineAt !== observed.deadlineAt) return;
  const lease = current.leaseExpiresAt;
  return typeof lease === 'number' && lease >= now ? lease : undefined;
}

/**
 * Moves a live claim's index deadline up to its lease expiry, conditional on the state, fence and deadline the
 * sweeper observed: the one index write that replaces moving the index on every heartbeat.
 */
function buildDeadlineAdvance(
  tableName: string,
  item: Pick<WorkItem, 'tenantId' | 'operationId' | 'fence' | 'deadlineAt'>,
  leaseExpiresAt: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const update = x.update({ deadlineAt: leaseExpiresAt });
  const conditions = [
    `${x.name('state')} = ${x.value(WorkState.claimed)}`,
    `${x.name('fence')} = ${x.value(item.fence)}`,
    `${x.name('deadlineAt')} = ${x.value(item.deadlineAt)}`,
  ];
  return {
    TableName: tableName,
    Key: workItemKey({ tenantId: item.tenantId, operationId: item.operationId }),
    UpdateExpression: update,
    ConditionExpression: conditions.join(' AND '),
    ...x.attributes(),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

export {
  buildDeadlineAdvance,
  buildDeadlineQuery,
  buildOldestUnknownQuery,
  buildResignalUpdate,
  liveLeaseExpiry,
  resignalLanded,
};
