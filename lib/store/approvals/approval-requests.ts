import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JobIdentity } from '../../identity.js';
import { WorkState } from '../../states.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import type { OperatorTransition } from '../operator/operator-requests.js';
import { deadlineShardFor, TableKeys, workItemKey } from '../table.js';
import { LEASE_ATTRIBUTES, PARKED_ATTRIBUTES, type TableContext } from '../work-items/requests.js';
import type { AuditEntry, CallerIdentity, WorkItem } from '../work-items/work-item.js';

/*
 * The decisions on a job awaiting approval. Approve and reject are each ONE conditional UpdateItem sent without a
 * read: everything they depend on (the state, the payload hash the approver saw, the approver rule and the
 * producer) is in the condition, so nothing can change between a check and the write.
 */

/** Attributes that exist only while a job awaits approval (its producer is kept: the audit trail names it). */
const APPROVAL_ATTRIBUTES = ['approvalExpiresAt', 'approvers'] as const;

/** Audit actions of the approval decisions. */
const ApprovalAction = { approve: 'approve', reject: 'reject', expire: 'approval_expired' } as const;

/** Who decides and why; `approverId` is the caller's IAM principal id (no session), when AWS authenticated the call. */
interface ApprovalDecision {
  readonly actor: string;
  readonly caller?: CallerIdentity;
  readonly reason: string;
  readonly approverId?: string;
}

function auditEntry(decision: ApprovalDecision, action: string, to: WorkState, now: number): AuditEntry {
  return {
    at: now,
    actor: decision.actor,
    ...(decision.caller ? { caller: decision.caller } : {}),
    action,
    from: WorkState.awaiting_approval,
    to,
    reason: decision.reason,
  };
}

function appendAudit(x: ExpressionBuilder, entry: AuditEntry): string {
  return `${x.name('audit')} = list_append(if_not_exists(${x.name('audit')}, ${x.value([])}), ${x.value([entry])})`;
}

/**
 * The approver rule inside the condition: a `not-producer` row is approved only by an authenticated principal other
 * than its recorded producer (no producer recorded or no approver known: refused, never assumed different).
 */
function approverCondition(x: ExpressionBuilder, approverId: string | undefined): string {
  const open = `${x.name('approvers')} <> ${x.value('not-producer')}`;
  if (approverId === undefined) return open;
  return `(${open} OR (attribute_exists(${x.name('producerId')}) AND ${x.name('producerId')} <> ${x.value(approverId)}))`;
}

/** A decision's one conditional update of the row: the new item back on success, the refusing one on failure. */
function decisionUpdate(
  table: TableContext,
  identity: JobIdentity,
  x: ExpressionBuilder,
  update: string,
  condition: string,
): UpdateCommandInput {
  return {
    TableName: table.tableName,
    Key: workItemKey(identity),
    UpdateExpression: update,
    ConditionExpression: condition,
    ...x.attributes(),
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * awaiting_approval ▶ queued, due now (a delayed job: at its own due time), conditional on the state, `payloadHash` = the hash the approver saw,
 * the window not closed (`approvalExpiresAt` ≥ now) and the approver rule; audited in the same write. The fence is left as it is (no holder exists to cut off).
 */
function buildApproveUpdate(
  table: TableContext,
  identity: JobIdentity,
  payloadHash: string,
  decision: ApprovalDecision,
  now: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  // Due now, or at the due time a delayed job's row was written with (SET operands read the row before the update).
  const due = `if_not_exists(${x.name('availableAt')}, ${x.value(now)})`;
  const update = x.update(
    {
      state: WorkState.queued,
      deadlineShard: deadlineShardFor(identity, table.deadlineShards),
      approvedAt: now,
      updatedAt: now,
    },
    [...PARKED_ATTRIBUTES, ...APPROVAL_ATTRIBUTES],
    [
      `${x.name('availableAt')} = ${due}`,
      `${x.name('deadlineAt')} = ${due}`,
      appendAudit(x, auditEntry(decision, ApprovalAction.approve, WorkState.queued, now)),
    ],
  );
  const condition = [
    `attribute_exists(${x.name(TableKeys.partition)})`,
    `${x.name('state')} = ${x.value(WorkState.awaiting_approval)}`,
    `${x.name('payloadHash')} = ${x.value(payloadHash)}`,
    // The window, in the write itself: an approval after it is refused even before the sweeper expires the row.
    `${x.name('approvalExpiresAt')} >= ${x.value(now)}`,
    approverCondition(x, decision.approverId),
  ].join(' AND ');
  return decisionUpdate(table, identity, x, update, condition);
}

/** The attributes a job that leaves awaiting_approval without running drops, and what it records. */
function cancelledWithoutRunning(errorCode: string, now: number): { set: Record<string, unknown>; remove: string[] } {
  return {
    set: { state: WorkState.cancelled, errorCode, finishedAt: now, updatedAt: now },
    remove: [...LEASE_ATTRIBUTES, ...PARKED_ATTRIBUTES, ...APPROVAL_ATTRIBUTES],
  };
}

/**
 * awaiting_approval ▶ cancelled (errorCode `approval_rejected`), fence + 1 like every cancel, conditional on the state
 * only (a rejection needs no payload binding: it runs nothing); audited in the same write.
 */
function buildRejectUpdate(
  table: TableContext,
  identity: JobIdentity,
  decision: ApprovalDecision,
  now: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const { set, remove } = cancelledWithoutRunning('approval_rejected', now);
  const update = x.update(set, remove, [
    `${x.name('fence')} = ${x.name('fence')} + ${x.value(1)}`,
    appendAudit(x, auditEntry(decision, ApprovalAction.reject, WorkState.cancelled, now)),
  ]);
  const condition = `attribute_exists(${x.name(TableKeys.partition)}) AND ${x.name('state')} = ${x.value(WorkState.awaiting_approval)}`;
  return decisionUpdate(table, identity, x, update, condition);
}

/**
 * Sweeper: awaiting_approval past `approvalExpiresAt` ▶ cancelled (errorCode `approval_expired`), fence + 1,
 * conditional on the state and fence read from the deadline index and on the expiry having passed.
 */
function expireApprovalTransition(item: Pick<WorkItem, 'fence'>, now: number): OperatorTransition {
  const { set, remove } = cancelledWithoutRunning('approval_expired', now);
  const { state: _state, updatedAt: _updatedAt, ...rest } = set;
  return {
    expected: { state: WorkState.awaiting_approval, fence: item.fence },
    to: WorkState.cancelled,
    set: rest,
    remove,
    condition: (x) => `${x.name('approvalExpiresAt')} < ${x.value(now)}`,
    audit: { actor: 'sweeper', action: ApprovalAction.expire, reason: 'nobody approved or rejected it in time' },
  };
}

/**
 * Whether `current` shows this very decision committed at `now` (a lost response retried by the SDK): still in the
 * decision's target state, last written at `now`, and last in its audit trail this actor's entry for this action.
 */
function decisionApplied(current: WorkItem, action: string, actor: string, now: number): boolean {
  const last = current.audit?.at(-1);
  const to = action === ApprovalAction.approve ? WorkState.queued : WorkState.cancelled;
  return (
    current.state === to &&
    current.updatedAt === now &&
    last?.at === now &&
    last.action === action &&
    last.actor === actor
  );
}

export {
  APPROVAL_ATTRIBUTES,
  ApprovalAction,
  type ApprovalDecision,
  buildApproveUpdate,
  buildRejectUpdate,
  decisionApplied,
  expireApprovalTransition,
};
