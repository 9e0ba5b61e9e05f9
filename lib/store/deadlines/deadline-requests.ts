import type { QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { WorkState } from '../../states.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { JobsIndex, workItemKey } from '../table.js';
import type { WorkItem } from '../work-items/work-item.js';

/*
 * Requests on the deadline index, pure: the due page the sweeper reads, the conditional writes that move an
 * item's deadline (re-signal, live-lease advance), and the admin's active listings and counts. Unit tests check
 * each on the exact DynamoDB request it produces.
 */

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

/** Which claimed or queued items of one deadline shard an active listing reads (filters; never a Scan). */
interface ActiveShardQuery {
  shard: string;
  state: typeof WorkState.claimed | typeof WorkState.queued;
  tenantId?: string;
  /** Only items created at or before this time (the index carries `createdAt`, not the lease's updates). */
  createdAtOrBefore?: number;
  /** Rows the Query evaluates (a filtered page can return fewer). */
  limit: number;
  startKey?: Record<string, unknown>;
}

/** One filtered page of a deadline shard for the active listings: state, and optionally tenant and age. */
function buildActiveShardQuery(tableName: string, query: ActiveShardQuery): QueryCommandInput {
  const filters = ['#state = :state'];
  const names: Record<string, string> = { '#partition': JobsIndex.byDeadline.partition, '#state': 'state' };
  const values: Record<string, unknown> = { ':state': query.state };
  if (query.tenantId) {
    filters.push('#tenant = :tenant');
    names['#tenant'] = 'tenantId';
    values[':tenant'] = query.tenantId;
  }
  if (query.createdAtOrBefore !== undefined) {
    filters.push('#age <= :cutoff');
    names['#age'] = 'createdAt';
    values[':cutoff'] = query.createdAtOrBefore;
  }
  return {
    TableName: tableName,
    IndexName: JobsIndex.byDeadline.name,
    KeyConditionExpression: '#partition = :partition',
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ':partition': query.shard },
    Limit: query.limit,
    ...(query.startKey ? { ExclusiveStartKey: query.startKey } : {}),
  };
}

/** Every entry of one deadline shard in `state` (a filtered Query, counted by the caller). */
function buildShardStateQuery(tableName: string, shard: string, state: string): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: JobsIndex.byDeadline.name,
    KeyConditionExpression: '#p = :p',
    FilterExpression: '#state = :state',
    ExpressionAttributeNames: { '#p': JobsIndex.byDeadline.partition, '#state': 'state' },
    ExpressionAttributeValues: { ':p': shard, ':state': state },
  };
}

/** Claimed entries of one deadline shard whose index deadline is before `now` (expired, not yet swept). */
function buildExpiredClaimsQuery(tableName: string, shard: string, now: number): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: JobsIndex.byDeadline.name,
    KeyConditionExpression: '#p = :p AND #d < :now',
    FilterExpression: '#state = :claimed',
    ExpressionAttributeNames: {
      '#p': JobsIndex.byDeadline.partition,
      '#d': JobsIndex.byDeadline.sort,
      '#state': 'state',
    },
    ExpressionAttributeValues: { ':p': shard, ':now': now, ':claimed': WorkState.claimed },
    Select: 'COUNT',
  };
}

export {
  type ActiveShardQuery,
  buildActiveShardQuery,
  buildDeadlineAdvance,
  buildDeadlineQuery,
  buildExpiredClaimsQuery,
  buildResignalUpdate,
  buildShardStateQuery,
  resignalLanded,
};
