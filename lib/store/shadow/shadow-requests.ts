import type { ScanCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JobIdentity } from '../../identity.js';
import { shadowKey, TableKeys, TTL_ATTRIBUTE } from '../table.js';

/*
 * Requests of shadow mode, pure: a shadow row per identity (`shadow#<operationId>`, beside its work item) records
 * each execution an existing consumer ran, as leasefence would have claimed it. Exact-request unit tests.
 */

/** Executions kept per identity: a start past this many is refused (counted), the row says the list is full. */
const MAX_SHADOW_EXECUTIONS = 100;

/** How an execution ended: the wrapped handler returned (or reported the message done), or it failed it. */
type ShadowOutcome = 'succeeded' | 'failed';

/**
 * One recorded execution. Its fence is its position in the row's list + 1: the start write appends it and raises
 * the row's fence in one UpdateItem, so the two never disagree. Short names: up to 100 of them per row.
 */
interface ShadowExecution {
  /** Started at (ms, the wrapper's clock). */
  s: number;
  /** Where leasefence's lease of this claim would have ended (s + the shadow lease). */
  l: number;
  /** Payload hash (RFC 8785 SHA-256) of what this execution ran. */
  h: string;
  /** Ended at, when the end was recorded. */
  e?: number;
  /** Outcome, when the end was recorded. */
  o?: ShadowOutcome;
}

/** What a start records: the identity the team's function derived, what ran, and the shadow lease. */
interface ShadowStart {
  identity: JobIdentity;
  jobType: string;
  payloadHash: string;
  startedAt: number;
  leaseMs: number;
  retentionMs: number;
}

/**
 * The start of one execution: appends it to the identity's shadow row (creating the row) and raises the row's
 * fence, in one conditional UpdateItem that reads nothing first. Refused when the key holds another kind of row
 * or the list is full. Returns the new fence (UPDATED_NEW), which addresses the end.
 */
function buildShadowStart(tableName: string, start: ShadowStart): UpdateCommandInput {
  const execution: ShadowExecution = {
    s: start.startedAt,
    l: start.startedAt + start.leaseMs,
    h: start.payloadHash,
  };
  return {
    TableName: tableName,
    Key: shadowKey(start.identity),
    UpdateExpression:
      'SET #kind = :shadow, #tenant = :tenant, #operation = :operation, #jobType = :jobType, ' +
      '#x = list_append(if_not_exists(#x, :empty), :execution), #ttl = :ttl, #updatedAt = :now ADD #fence :one',
    ConditionExpression: 'attribute_not_exists(#pk) OR (#kind = :shadow AND size(#x) < :max)',
    ExpressionAttributeNames: {
      '#pk': TableKeys.partition,
      '#kind': 'kind',
      '#tenant': 'tenantId',
      '#operation': 'operationId',
      '#jobType': 'jobType',
      '#x': 'x',
      '#ttl': TTL_ATTRIBUTE,
      '#updatedAt': 'updatedAt',
      '#fence': 'fence',
    },
    ExpressionAttributeValues: {
      ':shadow': 'shadow',
      ':tenant': start.identity.tenantId,
      ':operation': start.identity.operationId,
      ':jobType': start.jobType,
      ':empty': [],
      ':execution': [execution],
      ':ttl': Math.floor((start.startedAt + start.retentionMs) / 1000),
      ':now': start.startedAt,
      ':one': 1,
      ':max': MAX_SHADOW_EXECUTIONS,
    },
    ReturnValues: 'UPDATED_NEW',
  };
}

/**
 * The end of the execution with `fence`: sets its end time and outcome in place (list index fence - 1), one
 * conditional UpdateItem, only if the row is a shadow row and that execution exists.
 */
function buildShadowEnd(
  tableName: string,
  identity: JobIdentity,
  fence: number,
  end: { endedAt: number; outcome: ShadowOutcome },
): UpdateCommandInput {
  const index = Math.trunc(fence) - 1;
  return {
    TableName: tableName,
    Key: shadowKey(identity),
    UpdateExpression: `SET #x[${index}].#e = :endedAt, #x[${index}].#o = :outcome`,
    ConditionExpression: `#kind = :shadow AND attribute_exists(#x[${index}].#s)`,
    ExpressionAttributeNames: { '#kind': 'kind', '#x': 'x', '#e': 'e', '#o': 'o', '#s': 's' },
    ExpressionAttributeValues: { ':shadow': 'shadow', ':endedAt': end.endedAt, ':outcome': end.outcome },
  };
}

/** The payload hash an erased execution holds instead of its own (its times are zeroed too). */
const ERASED_EXECUTION_HASH = 'erased';

/**
 * Erasure of one shadow row (a tenant's erasure): every execution's hash and times replaced by a tombstone, the
 * list kept at its length so each fence still addresses its own position, only if the row still holds `count`
 * executions (a start in between is erased by the next call). The row keeps identity (its key), job type and fence,
 * like a work row's tombstone; the admin may not delete rows.
 */
function buildShadowErase(
  tableName: string,
  key: { pk: string; sk: string },
  count: number,
  now: number,
): UpdateCommandInput {
  const tombstone: ShadowExecution = { s: 0, l: 0, h: ERASED_EXECUTION_HASH };
  return {
    TableName: tableName,
    Key: key,
    UpdateExpression: 'SET #x = :tombstones, #erasedAt = :now',
    ConditionExpression: '#kind = :shadow AND size(#x) = :count',
    ExpressionAttributeNames: { '#kind': 'kind', '#x': 'x', '#erasedAt': 'erasedAt' },
    ExpressionAttributeValues: {
      ':shadow': 'shadow',
      ':tombstones': Array.from({ length: count }, () => tombstone),
      ':count': count,
      ':now': now,
    },
  };
}

/** One page of the shadow rows of the whole table (consistent Scan, filtered by kind): the report's read. */
function buildShadowScan(tableName: string, limit: number, startKey?: Record<string, unknown>): ScanCommandInput {
  return {
    TableName: tableName,
    FilterExpression: '#kind = :shadow',
    ExpressionAttributeNames: { '#kind': 'kind' },
    ExpressionAttributeValues: { ':shadow': 'shadow' },
    Limit: limit,
    ConsistentRead: true,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  };
}

export {
  buildShadowEnd,
  buildShadowErase,
  buildShadowScan,
  buildShadowStart,
  ERASED_EXECUTION_HASH,
  MAX_SHADOW_EXECUTIONS,
  type ShadowExecution,
  type ShadowOutcome,
  type ShadowStart,
};
