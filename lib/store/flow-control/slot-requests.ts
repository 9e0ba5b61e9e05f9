import type { DeleteCommandInput, PutCommandInput, QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { LimitScope } from '../../flow-control/concurrency-limits.js';
import type { Priority } from '../../flow-control/priorities.js';
import { sha256Hex } from '../../hashing.js';
import { WorkState } from '../../states.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { TableKeys, TTL_ATTRIBUTE, workItemKey } from '../table.js';
import type { Claim } from '../work-items/work-item.js';

/*
 * The table format of concurrency slots (issue #42). Each limit of a job type is one partition of the jobs table
 * (`#slot#<jobType>#type`, `#slot#<jobType>#tenant#<tenant>`, `#slot#<jobType>#key#<tenant>#<key hash>`): `#`
 * starts no tenant key, so no producer grant reaches it. In it, slot `i` of the limit is the item `slot#<i>`,
 * present only while held (its holder's identity, claim id, fence and lease expiry), and a job waiting for the limit
 * is the item `wait#<since>#<tenant>#<operation>` (what its wake-up names, never a payload body).
 */

/** Partition prefix of every slot partition. */
const SLOT_PARTITION_PREFIX = '#slot#';
/** Sort-key prefixes inside a slot partition. */
const SlotKeyPrefix = { slot: 'slot#', wait: 'wait#' } as const;
/** The row's errorCode while it waits queued for a slot: not a failure, not an attempt. */
const CONCURRENCY_WAIT = 'concurrency_wait';
/** How long a slot or waiter item outlives its lease before TTL removes it (an expired slot is free anyway). */
const RESIDUE_TTL_SECONDS = 86_400;

/** Partition key of a limit of a job type (the key hashed: a payload-derived value is never stored). */
function slotPartition(jobType: string, scope: LimitScope): string {
  const base = `${SLOT_PARTITION_PREFIX}${jobType}#${scope.kind}`;
  if (scope.kind === 'type') return base;
  if (scope.kind === 'tenant') return `${base}#${scope.tenantId}`;
  return `${base}#${scope.tenantId}#${sha256Hex(`slot-key\u0000${scope.key}`).slice(0, 32)}`;
}

/** Key of slot `index` of a limit. */
function slotKey(partition: string, index: number): { pk: string; sk: string } {
  return { pk: partition, sk: `${SlotKeyPrefix.slot}${String(index).padStart(4, '0')}` };
}

/** Who holds a slot: the claim (its identity, id and fence) and until when; `limit`: the limit's size it took it under. */
interface SlotHolder {
  readonly claim: Claim;
  readonly leaseExpiresAt: number;
  readonly limit?: number;
}

/**
 * Takes slot `index` for `holder` with one conditional PutItem: only a free slot (absent), one whose holder's lease
 * expired before `now`, or one an earlier claim of the same job holds (a takeover re-takes it) can be taken. The old
 * item comes back (ALL_OLD) so a re-grant over an expired holder is counted. No read decides ownership.
 */
function buildAcquireRequest(
  tableName: string,
  partition: string,
  index: number,
  holder: SlotHolder,
  now: number,
): PutCommandInput & { Item: Record<string, unknown> } {
  const { claim } = holder;
  const x = new ExpressionBuilder();
  const free = `attribute_not_exists(${x.name(TableKeys.partition)})`;
  const expired = `${x.name('leaseExpiresAt')} < ${x.value(now)}`;
  const sameJob = `(${x.name('tenantId')} = ${x.value(claim.identity.tenantId)} AND ${x.name('operationId')} = ${x.value(claim.identity.operationId)} AND ${x.name('fence')} <= ${x.value(claim.fence)})`;
  return {
    TableName: tableName,
    Item: {
      ...slotKey(partition, index),
      kind: 'slot',
      jobType: claim.jobType,
      tenantId: claim.identity.tenantId,
      operationId: claim.identity.operationId,
      fence: claim.fence,
      claimId: claim.claimId,
      leaseExpiresAt: holder.leaseExpiresAt,
      ...(holder.limit !== undefined ? { limit: holder.limit } : {}),
      acquiredAt: now,
      [TTL_ATTRIBUTE]: Math.ceil(holder.leaseExpiresAt / 1000) + RESIDUE_TTL_SECONDS,
    },
    ConditionExpression: `${free} OR ${expired} OR ${sameJob}`,
    ...x.attributes(),
    ReturnValues: 'ALL_OLD',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** Extends a held slot to the holder's renewed lease, only while this claim still holds it (its claim id). */
function buildRenewRequest(tableName: string, key: { pk: string; sk: string }, holder: SlotHolder): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const update = x.update({
    leaseExpiresAt: holder.leaseExpiresAt,
    [TTL_ATTRIBUTE]: Math.ceil(holder.leaseExpiresAt / 1000) + RESIDUE_TTL_SECONDS,
  });
  return {
    TableName: tableName,
    Key: key,
    UpdateExpression: update,
    ConditionExpression: `${x.name('claimId')} = ${x.value(holder.claim.claimId)}`,
    ...x.attributes(),
  };
}

/** Frees a slot, only while this claim holds it: a slot re-granted to another job is never freed by the old holder. */
function buildReleaseRequest(tableName: string, key: { pk: string; sk: string }, claimId: string): DeleteCommandInput {
  const x = new ExpressionBuilder();
  return {
    TableName: tableName,
    Key: key,
    ConditionExpression: `${x.name('claimId')} = ${x.value(claimId)}`,
    ...x.attributes(),
  };
}

/** What a waiter item records: what the job's wake-up names (no body), and the fence its queued row carries. */
interface WaiterRecord {
  readonly pk: string;
  readonly sk: string;
  readonly tenantId: string;
  readonly operationId: string;
  readonly jobType: string;
  readonly fence: number;
  readonly payloadHash: string;
  readonly payloadInline: boolean;
  readonly payloadRef?: string;
  readonly waitingSince: number;
  /** The lane its wake-up goes to: `bulk` for a job that travels in the bulk lane; absent: urgent. */
  readonly lane?: Priority;
}

/** Key of a job's waiter item: the wait's start (kept across its re-waits), then its identity. */
function waiterKey(partition: string, claim: Claim, waitingSince: number): { pk: string; sk: string } {
  const { tenantId, operationId } = claim.identity;
  return {
    pk: partition,
    sk: `${SlotKeyPrefix.wait}${String(waitingSince).padStart(15, '0')}#${tenantId}#${operationId}`,
  };
}

/** Records a job as waiting for a limit (one PutItem; the key orders waiters oldest first). */
function buildWaiterPut(
  tableName: string,
  partition: string,
  waiter: { claim: Claim; waitingSince: number; lane: Priority },
  now: number,
): PutCommandInput & { Item: WaiterRecord } {
  const { claim, waitingSince } = waiter;
  const { tenantId, operationId } = claim.identity;
  const item: WaiterRecord & Record<string, unknown> = {
    ...waiterKey(partition, claim, waitingSince),
    kind: 'slot_waiter',
    tenantId,
    operationId,
    jobType: claim.jobType,
    fence: claim.fence,
    payloadHash: claim.payloadHash,
    payloadInline: claim.payloadInline,
    ...(claim.payloadRef !== undefined ? { payloadRef: claim.payloadRef } : {}),
    waitingSince,
    ...(waiter.lane === 'bulk' ? { lane: waiter.lane } : {}),
    [TTL_ATTRIBUTE]: Math.ceil(now / 1000) + RESIDUE_TTL_SECONDS,
  };
  return { TableName: tableName, Item: item };
}

/** The items of a limit's partition with one sort-key prefix (held slots or waiters), oldest waiter first. */
function buildPartitionQuery(tableName: string, partition: string, prefix: string, limit?: number): QueryCommandInput {
  const x = new ExpressionBuilder();
  return {
    TableName: tableName,
    KeyConditionExpression: `${x.name(TableKeys.partition)} = ${x.value(partition)} AND begins_with(${x.name(TableKeys.sort)}, ${x.value(prefix)})`,
    ...x.attributes(),
    ConsistentRead: true,
    ...(limit !== undefined ? { Limit: limit } : {}),
  };
}

/**
 * Makes a waiting job due now (a freed slot wakes it): only if its row is still queued, waiting for a slot, under
 * the fence the waiter recorded; any later claim or transition moved the fence or the state, and nothing is written.
 */
function buildWakeWaitingRow(tableName: string, waiter: WaiterRecord, now: number): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const update = x.update({ availableAt: now, deadlineAt: now, updatedAt: now });
  const condition = [
    `${x.name('state')} = ${x.value(WorkState.queued)}`,
    `${x.name('fence')} = ${x.value(waiter.fence)}`,
    `${x.name('errorCode')} = ${x.value(CONCURRENCY_WAIT)}`,
  ].join(' AND ');
  return {
    TableName: tableName,
    Key: workItemKey({ tenantId: waiter.tenantId, operationId: waiter.operationId }),
    UpdateExpression: update,
    ConditionExpression: condition,
    ...x.attributes(),
  };
}

/** Removes one waiter item only if it is still there: of two releasers, one wakes it. */
function buildWaiterDelete(tableName: string, waiter: Pick<WaiterRecord, 'pk' | 'sk'>): DeleteCommandInput {
  const x = new ExpressionBuilder();
  return {
    TableName: tableName,
    Key: { pk: waiter.pk, sk: waiter.sk },
    ConditionExpression: `attribute_exists(${x.name(TableKeys.partition)})`,
    ...x.attributes(),
  };
}

export {
  buildAcquireRequest,
  buildPartitionQuery,
  buildReleaseRequest,
  buildRenewRequest,
  buildWaiterDelete,
  buildWaiterPut,
  buildWakeWaitingRow,
  CONCURRENCY_WAIT,
  SLOT_PARTITION_PREFIX,
  type SlotHolder,
  SlotKeyPrefix,
  slotKey,
  slotPartition,
  type WaiterRecord,
  waiterKey,
};
