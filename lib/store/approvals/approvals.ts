import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { type ApprovalRefusal, ApprovalRefusedError, ItemNotFoundError } from '../../errors.js';
import { formatIdentity, type ValidIdentity } from '../../identity.js';
import { WorkState } from '../../states.js';
import { sendConditional } from '../driver/conditional-write.js';
import type { StoreConnection } from '../driver/connection.js';
import { sendGet } from '../driver/plain-requests.js';
import { workItemKey } from '../table.js';
import { isWorkItem, type WorkItem } from '../work-items/work-item.js';
import { ApprovalRecords } from './approval-records.js';
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
function refusalOf(current: WorkItem, payloadHash: string | undefined, now: number): ApprovalRefusal {
  if (current.state !== WorkState.awaiting_approval) return 'not_awaiting_approval';
  if (payloadHash !== undefined && current.payloadHash !== payloadHash) return 'payload_hash_mismatch';
  if (payloadHash !== undefined && (current.approvalExpiresAt ?? 0) < now) return 'approval_expired';
  return 'approver_is_producer';
}

const REFUSAL_TEXT: Record<ApprovalRefusal, string> = {
  not_awaiting_approval: 'it no longer awaits approval',
  payload_hash_mismatch: 'its payload hash is not the one the approver saw (an approval never covers another payload)',
  approver_is_producer:
    'this job type needs an approver other than its producer (the producer and the approver must both be known)',
  approval_expired: 'its approval window closed (the sweeper cancels it)',
  approval_not_open:
    'no worker has opened its approval record yet (its message has not been delivered); try again once it has',
};

/**
 * The decisions on jobs awaiting approval, each one conditional UpdateItem without a read before it (see
 * approval-requests.ts). A refusal is ApprovalRefusedError with the row as it stands, or ItemNotFoundError; nothing
 * is changed by either. A decision retried by the SDK after a lost response is recognised as applied.
 */
class Approvals {
  /** The approval records (approval-records.ts): what the worker checks before it runs a gated job. */
  readonly records: ApprovalRecords;

  constructor(private readonly db: StoreConnection) {
    this.records = new ApprovalRecords(db);
  }

  /**
   * awaiting_approval ▶ queued for `payloadHash` (the hash the approver saw); returns the row as committed. The
   * approval record is decided first (the authority: the row is the producer's to write), then the row (the wake).
   */
  async approve(identity: ValidIdentity, payloadHash: string, decision: ApprovalDecision): Promise<WorkItem> {
    const now = this.db.clock.now();
    const recorded = await this.records.approve(identity, payloadHash, decision, now);
    if (!recorded.ok) {
      // The row read back for the error only: what it says first (not awaiting, another hash), else the record's reason.
      const current = await this.readRow(identity);
      const fromRow = refusalOf(current, payloadHash, now);
      const refusal =
        fromRow === 'not_awaiting_approval' || fromRow === 'payload_hash_mismatch' ? fromRow : recorded.refusal;
      throw new ApprovalRefusedError(
        `approve of ${formatIdentity(identity)} refused: ${REFUSAL_TEXT[refusal]} (now ${current.state}); nothing was changed`,
        refusal,
        current,
      );
    }
    const request = buildApproveUpdate(this.db.table, identity, payloadHash, decision, now);
    return this.decide(identity, request, ApprovalAction.approve, decision, now, payloadHash);
  }

  /** awaiting_approval ▶ cancelled (`approval_rejected`, fence + 1), its approval record closed; returns the row as committed. */
  async reject(identity: ValidIdentity, decision: ApprovalDecision): Promise<WorkItem> {
    const now = this.db.clock.now();
    await this.records.reject(identity, decision, now);
    const request = buildRejectUpdate(this.db.table, identity, decision, now);
    return this.decide(identity, request, ApprovalAction.reject, decision, now, undefined);
  }

  /** The work row as stored (for a refusal's error only), or ItemNotFoundError. */
  private async readRow(identity: ValidIdentity): Promise<WorkItem> {
    const read = await sendGet(this.db.client, {
      TableName: this.db.table.tableName,
      Key: workItemKey(identity),
      ConsistentRead: true,
    });
    if (!isWorkItem(read.Item))
      throw new ItemNotFoundError(`no work item ${formatIdentity(identity)}`, { ...identity });
    return read.Item;
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
    const refusal = refusalOf(current, payloadHash, now);
    throw new ApprovalRefusedError(
      `${action} of ${formatIdentity(identity)} refused: ${REFUSAL_TEXT[refusal]} (now ${current.state}); nothing was changed`,
      refusal,
      current,
    );
  }
}

export { Approvals };
