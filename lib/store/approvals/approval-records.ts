import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Approvers } from '../../approval-policy.js';
import type { ValidIdentity } from '../../identity.js';
import { DAY_MS, RetentionDays } from '../../rules.js';
import { sendConditional } from '../driver/conditional-write.js';
import type { StoreConnection } from '../driver/connection.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { sendGet } from '../driver/plain-requests.js';
import { approvalRecordKey, TableKeys, TTL_ATTRIBUTE } from '../table.js';

/** How long an approval record is kept past its window when the opener names no retention (the payload default). */
const DEFAULT_APPROVAL_RETENTION_MS = RetentionDays.default * DAY_MS;

/*
 * The approval record: what binds a gated job's approval, kept where no producer grant reaches (`#approval#<bucket>`,
 * table.ts). The work row is the producer's to write (a delayed or confirm-first job's row is written first, by an
 * unconditional PutItem IAM cannot hold to `attribute_not_exists`), so nothing on the row is trusted for approval:
 * the worker opens the record from what only it knows (the job definition's approvers and window, the SQS SenderId of
 * the original sender) and the admin decides on the record in one conditional write. The worker runs a gated job
 * only once the record says approved, for the payload hash it verified the body against.
 */

/** Who, for which payload and until when: what the worker records when it first sees a gated job. */
interface ApprovalOpening {
  readonly payloadHash: string;
  readonly approvers: Approvers;
  /** Epoch ms after which no approval is accepted (the approve write's own condition). */
  readonly expiresAt: number;
  /** The original sender's IAM principal id (no session), when known; `not-producer` refuses every approver without it. */
  readonly producerId?: string;
}

/** An approval record as stored. */
interface ApprovalRecord extends ApprovalOpening {
  readonly tenantId: string;
  readonly operationId: string;
  readonly openedAt: number;
  readonly decision?: 'approved' | 'rejected';
  readonly decidedAt?: number;
  readonly actor?: string;
  /** The approver's IAM principal id (no session), when AWS authenticated the call. */
  readonly approverId?: string;
}

/** Who decides: the audited actor and, when AWS authenticated the call, the caller's principal id. */
interface RecordDecision {
  readonly actor: string;
  readonly approverId?: string;
}

/** Why the record refused an approval (first that applies), for the error only: the condition decided. */
type RecordRefusal =
  | 'approval_not_open'
  | 'not_awaiting_approval'
  | 'payload_hash_mismatch'
  | 'approval_expired'
  | 'approver_is_producer';

function isApprovalRecord(item: Record<string, unknown> | undefined): item is Record<string, unknown> & ApprovalRecord {
  return typeof item?.payloadHash === 'string' && typeof item.expiresAt === 'number';
}

/**
 * approve: one conditional UpdateItem, no read before it. Passes only while the record is open or already approved
 * by this same actor (a retry), for the payload hash the approver saw, before its expiry, and for `not-producer` by a
 * known approver other than the recorded producer.
 */
function approveRecordUpdate(
  db: StoreConnection,
  identity: ValidIdentity,
  payloadHash: string,
  decision: RecordDecision,
  now: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const update = x.update(
    {
      decision: 'approved',
      decidedAt: now,
      actor: decision.actor,
      ...(decision.approverId !== undefined ? { approverId: decision.approverId } : {}),
    },
    [],
  );
  const open = `attribute_not_exists(${x.name('decision')})`;
  const retried = `(${x.name('decision')} = ${x.value('approved')} AND ${x.name('actor')} = ${x.value(decision.actor)})`;
  const rule = `${x.name('approvers')} <> ${x.value('not-producer')}`;
  const approver =
    decision.approverId === undefined
      ? rule
      : `(${rule} OR (attribute_exists(${x.name('producerId')}) AND ${x.name('producerId')} <> ${x.value(decision.approverId)}))`;
  const condition = [
    `attribute_exists(${x.name(TableKeys.partition)})`,
    `(${open} OR ${retried})`,
    `${x.name('payloadHash')} = ${x.value(payloadHash)}`,
    `${x.name('expiresAt')} >= ${x.value(now)}`,
    approver,
  ].join(' AND ');
  return recordUpdate(db, identity, x, update, condition);
}

/** reject: the open record ▶ rejected (an approval never follows), conditional on no decision yet. */
function rejectRecordUpdate(
  db: StoreConnection,
  identity: ValidIdentity,
  decision: RecordDecision,
  now: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const update = x.update({ decision: 'rejected', decidedAt: now, actor: decision.actor }, []);
  const condition = `attribute_exists(${x.name(TableKeys.partition)}) AND attribute_not_exists(${x.name('decision')})`;
  return recordUpdate(db, identity, x, update, condition);
}

function recordUpdate(
  db: StoreConnection,
  identity: ValidIdentity,
  x: ExpressionBuilder,
  update: string,
  condition: string,
): UpdateCommandInput {
  return {
    TableName: db.table.tableName,
    Key: approvalRecordKey(identity),
    UpdateExpression: update,
    ConditionExpression: condition,
    ...x.attributes(),
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * Why `current` refused an approval of `payloadHash` at `now` by `decision` (first that applies). `current` may be
 * newer than what the condition saw (an engine without ReturnValuesOnConditionCheckFailure reads it back): a record
 * that passes every check now was opened after the write, so the answer is `approval_not_open` (try again).
 */
function recordRefusal(
  current: ApprovalRecord | undefined,
  payloadHash: string,
  now: number,
  decision: RecordDecision,
): RecordRefusal {
  if (current === undefined) return 'approval_not_open';
  if (current.decision !== undefined) return 'not_awaiting_approval';
  if (current.payloadHash !== payloadHash) return 'payload_hash_mismatch';
  if (current.expiresAt < now) return 'approval_expired';
  const producerKnownAndOther =
    decision.approverId !== undefined && current.producerId !== undefined && current.producerId !== decision.approverId;
  if (current.approvers === 'not-producer' && !producerKnownAndOther) return 'approver_is_producer';
  return 'approval_not_open';
}

/**
 * The approval records of gated jobs (see the comment at the top). Only the worker opens one (PutItem,
 * attribute_not_exists: the first opening stands) and only the admin decides one (conditional UpdateItem); IAM keeps
 * producers out of the partition and the worker and sweeper from updating it (infra/construct/permissions.ts).
 */
class ApprovalRecords {
  constructor(private readonly db: StoreConnection) {}

  /**
   * Opens the record of a gated job, once: an existing record is left as it is (returned as stored). The record
   * carries the table's TTL (`TTL_ATTRIBUTE`) at its window's end + `retentionMs` (pass the payload retention: a
   * body kept for the window lives no longer, so a job that could still run finds its record), so decided and
   * expired records do not pile up; DynamoDB deletes them some time after.
   */
  async open(
    identity: ValidIdentity,
    opening: ApprovalOpening,
    retentionMs = DEFAULT_APPROVAL_RETENTION_MS,
  ): Promise<ApprovalRecord> {
    const item = {
      ...approvalRecordKey(identity),
      kind: 'approval',
      tenantId: identity.tenantId,
      operationId: identity.operationId,
      payloadHash: opening.payloadHash,
      approvers: opening.approvers,
      expiresAt: opening.expiresAt,
      openedAt: this.db.clock.now(),
      ...(opening.producerId !== undefined ? { producerId: opening.producerId } : {}),
      [TTL_ATTRIBUTE]: Math.floor((opening.expiresAt + retentionMs) / 1000),
    };
    const outcome = await sendConditional(this.db.client, {
      kind: 'put',
      TableName: this.db.table.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': TableKeys.partition },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!outcome.ok && isApprovalRecord(outcome.current)) return outcome.current;
    return item as ApprovalRecord;
  }

  /** The record as stored (one consistent read), or undefined. */
  async read(identity: ValidIdentity): Promise<ApprovalRecord | undefined> {
    const output = await sendGet(this.db.client, {
      TableName: this.db.table.tableName,
      Key: approvalRecordKey(identity),
      ConsistentRead: true,
    });
    return isApprovalRecord(output.Item) ? output.Item : undefined;
  }

  /** Records an approval of `payloadHash` at `now`; a refusal says why, and nothing was changed. */
  async approve(
    identity: ValidIdentity,
    payloadHash: string,
    decision: RecordDecision,
    now: number,
  ): Promise<{ ok: true } | { ok: false; refusal: RecordRefusal }> {
    const request = approveRecordUpdate(this.db, identity, payloadHash, decision, now);
    const outcome = await sendConditional(this.db.client, { kind: 'update', ...request });
    if (outcome.ok) return { ok: true };
    const current = isApprovalRecord(outcome.current) ? outcome.current : undefined;
    return { ok: false, refusal: recordRefusal(current, payloadHash, now, decision) };
  }

  /** Records a rejection of an open record (none, or already decided: nothing is changed). */
  async reject(identity: ValidIdentity, decision: RecordDecision, now: number): Promise<void> {
    await sendConditional(this.db.client, { kind: 'update', ...rejectRecordUpdate(this.db, identity, decision, now) });
  }
}

export {
  type ApprovalOpening,
  type ApprovalRecord,
  ApprovalRecords,
  approveRecordUpdate,
  type RecordDecision,
  type RecordRefusal,
};
