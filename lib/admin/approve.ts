import * as z from 'zod/mini';
import { principalOf } from '../approval-policy.js';
import { type JobIdentity, parseIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { sendWakeSignals } from '../messaging/wake.js';
import { payloadHashSchema } from '../rules.js';
import type { ApprovalDecision, OperatorAction, WorkItem } from '../store/index.js';
import type { AdminDeps } from './deps.js';
import type { RequeueResult } from './retry.js';
import { actionObjectSchema, actionSchema } from './schemas.js';

/** Input of approve: who (the authenticated caller), why, and the payload hash the approver saw. */
interface ApproveInput extends OperatorAction {
  payloadHash: string;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const approveSchema = z.lazy(() => z.extend(actionObjectSchema(), { payloadHash: payloadHashSchema }));

/** The decision an authenticated action stands for: the approver is the caller's IAM principal (no session name). */
function decisionOf(action: OperatorAction): ApprovalDecision {
  return {
    actor: action.actor,
    ...(action.caller ? { caller: action.caller, approverId: principalOf(action.caller.userId) } : {}),
    reason: action.reason,
  };
}

/**
 * awaiting_approval ▶ queued in ONE conditional write (no read before it): only while the job awaits approval, only
 * for the payload hash the approver saw, and for a `not-producer` job type only by an authenticated principal other
 * than its producer; audited with the caller and reason in the same write. Then a wake-up (`deferred`: the send
 * failed after the commit; the sweeper re-signals the queued row). Refused ▶ ApprovalRefusedError (its `refusal`
 * says which), missing ▶ ItemNotFoundError, bad input ▶ InvalidInputError; nothing is changed by any of them.
 * @example
 * await approveItem(deps, { tenantId: 'acme', operationId: 'refund-r_815' }, { actor, reason: 'checked', payloadHash });
 */
async function approveItem(deps: AdminDeps, identityInput: JobIdentity, input: ApproveInput): Promise<RequeueResult> {
  const identity = parseIdentity(identityInput);
  const valid = parseInput(approveSchema, input, 'approve');
  const item = await deps.store.approvals.approve(identity, valid.payloadHash, decisionOf(valid));
  const report = await sendWakeSignals(deps.sqs, deps.queueUrl, [item]);
  return { item, wake: report.sent === 1 ? 'sent' : 'deferred' };
}

/**
 * awaiting_approval ▶ cancelled (errorCode `approval_rejected`, fence + 1) in one conditional write, audited with the
 * caller and reason; nothing ever ran. Not awaiting ▶ ApprovalRefusedError, missing ▶ ItemNotFoundError, bad input ▶
 * InvalidInputError; nothing changed.
 * @example
 * await rejectItem(deps, { tenantId: 'acme', operationId: 'refund-r_815' }, { actor, reason: 'not authorised' });
 */
async function rejectItem(deps: AdminDeps, identityInput: JobIdentity, input: OperatorAction): Promise<WorkItem> {
  const identity = parseIdentity(identityInput);
  const valid = parseInput(actionSchema, input, 'reject');
  return deps.store.approvals.reject(identity, decisionOf(valid));
}

export { type ApproveInput, approveItem, rejectItem };
