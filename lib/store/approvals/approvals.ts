import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { type ApprovalRefusal, ApprovalRefusedError, ItemNotFoundError } from '../../errors.js';
import { formatIdentity, type ValidIdentity } from '../../identity.js';
import { WorkState } from '../../states.js';
import { sendConditional } from '../driver/conditional-write.js';
import type { StoreConnection } from '../driver/connection.js';
import { isWorkItem, type WorkItem } from '../work-items/work-item.js';
import {
  ApprovalAction,
  type ApprovalDecision,
  buildApproveUpdate,
  buildRejectUpdate,
  decisionApplied,
} from './approval-requests.js';

/**
 * Why the row refused an approval, read from the row that came back (for the error only: the condition inside the
 * write decided). First that applies: not awaiting, another payload hash, the approver rule.
 */
function refusalOf(current: WorkItem, payloadHash: string | undefined): ApprovalRefusal {
  if (current.state !== WorkState.awaiting_approval) return 'not_awaiting_approval';
  if (payloadHash !== undefined && current.payloadHash !== payloadHash) return 'payload_hash_mismatch';
  return 'approver_is_producer';
}

const REFUSAL_TEXT: Record<ApprovalRefusal, string> = {
  not_awaiting_approval: 'it no longer awaits approval',
  payload_hash_mismatch: 'its payload hash is not the one the approver saw (an approval never covers another payload)',
  approver_is_producer:
    'this job type needs an approver other than its producer (the producer and the approver must both be known)',
};

/**
 * The decisions on jobs awaiting approval, each one conditional UpdateItem without a read before it (see
 * approval-requests.ts). A refusal is ApprovalRefusedError with the row as it stands, or ItemNotFoundError; nothing
 * is changed by either. A decision retried by the SDK after a lost response is recognised as applied.
 */
class Approvals {
  constructor(private readonly db: StoreConnection) {}

  /** awaiting_approval ▶ queued for `payloadHash` (the hash the approver saw); returns the row as committed. */
  approve(identity: ValidIdentity, payloadHash: string, decision: ApprovalDecision): Promise<WorkItem> {
    const now = this.db.clock.now();
    const request = buildApproveUpdate(this.db.table, identity, payloadHash, decision, now);
    return this.decide(identity, request, ApprovalAction.approve, decision, now, payloadHash);
  }

  /** awaiting_approval ▶ cancelled (`approval_rejected`, fence + 1); returns the row as committed. */
  reject(identity: ValidIdentity, decision: ApprovalDecision): Promise<WorkItem> {
    const now = this.db.clock.now();
    const request = buildRejectUpdate(this.db.table, identity, decision, now);
    return this.decide(identity, request, ApprovalAction.reject, decision, now, undefined);
  }

  private async decide(
    identity: ValidIdentity,
    request: UpdateCommandInput,
    action: string,
    decision: ApprovalDecision,
    now: number,
    payloadHash: string | undefined,
  ): Promise<WorkItem> {
    const outcome = await sendConditional(this.db.client, { kind: 'update', ...request });
    if (outcome.ok) return outcome.attributes as unknown as WorkItem;
    const current = outcome.current;
    if (!isWorkItem(current)) throw new ItemNotFoundError(`no work item ${formatIdentity(identity)}`, { ...identity });
    if (decisionApplied(current, action, decision.actor, now)) return current;
    const refusal = refusalOf(current, payloadHash);
    throw new ApprovalRefusedError(
      `${action} of ${formatIdentity(identity)} refused: ${REFUSAL_TEXT[refusal]} (now ${current.state}); nothing was changed`,
      refusal,
      current,
    );
  }
}

export { Approvals };
