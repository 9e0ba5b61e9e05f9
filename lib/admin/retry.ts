import { type JobIdentity, parseIdentity } from '../identity.js';
import { WorkState } from '../states.js';
import { type OperatorAction, requeueTransition } from '../store/transitions.js';
import type { WorkItem } from '../store/work-item.js';
import { deadlineShardFor } from '../table.js';
import { parseInput } from '../validation.js';
import { sendWakeSignals } from '../wake.js';
import { type AdminDeps, adminClock } from './deps.js';
import { actionSchema } from './schemas.js';

/** After a requeue: the item as committed, and whether its wake-up went out now or is left to the sweeper. */
interface RequeueResult {
  item: WorkItem;
  /** `deferred`: the send failed after the row committed; the sweeper re-signals the queued item. */
  wake: 'sent' | 'deferred';
}

/** States an operator may retry from. */
const RETRYABLE_STATES: readonly WorkState[] = [WorkState.failed_terminal, WorkState.unknown, WorkState.quarantined];

/**
 * Moves the item to queued (fence + 1, fresh attempt budget, audited in the same conditional write), then
 * sends a `wake` message. The row commits first: a failed send is reported as `deferred`, never undone.
 */
async function requeueAndWake(
  deps: AdminDeps,
  identity: JobIdentity,
  allowedFrom: readonly WorkState[],
  action: OperatorAction,
  auditAction: string,
): Promise<RequeueResult> {
  const now = adminClock(deps).now();
  const shard = deadlineShardFor(identity, deps.store.table.deadlineShards);
  const item = await deps.store.operate(identity, allowedFrom, (current) => {
    const transition = requeueTransition(current, action, shard, now);
    return { ...transition, audit: { ...action, action: auditAction } };
  });
  const report = await sendWakeSignals(deps.sqs, deps.queueUrl, [item]);
  return { item, wake: report.sent === 1 ? 'sent' : 'deferred' };
}

/**
 * failed_terminal | unknown | quarantined ▶ queued with the same identity and a higher fence, attempts reset,
 * audited; then a wake-up. Missing ▶ ItemNotFoundError; other state or a concurrent change ▶ IllegalTransitionError.
 * @example
 * await retryItem(deps, { tenantId: 'acme', operationId: 'refund-r_815' }, { actor, reason: 'provider fixed' });
 */
async function retryItem(deps: AdminDeps, identityInput: JobIdentity, input: OperatorAction): Promise<RequeueResult> {
  const identity = parseIdentity(identityInput);
  const action = parseInput(actionSchema, input, 'retry');
  return requeueAndWake(deps, identity, RETRYABLE_STATES, action, 'retry');
}

export { RETRYABLE_STATES, type RequeueResult, requeueAndWake, retryItem };
