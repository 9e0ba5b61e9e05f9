import * as z from 'zod/mini';
import { OperatorStatementRequiredError } from '../errors.js';
import { formatIdentity, type JobIdentity, parseIdentity, type ValidIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { sendWakeSignals } from '../messaging/wake.js';
import { WorkState } from '../states.js';
import type { OperatorStatement, WorkItem } from '../store/index.js';
import { type OperatorAction, requeueTransition } from '../store/index.js';
import { type AdminDeps, adminClock } from './deps.js';
import { actionObjectSchema } from './schemas.js';

/** After a requeue: the item as committed, and whether its wake-up went out now or is left to the sweeper. */
interface RequeueResult {
  item: WorkItem;
  /** `deferred`: the send failed after the row committed; the sweeper re-signals the queued item. */
  wake: 'sent' | 'deferred';
}

/** What an operator asks for when requeueing: who, why, and optionally that the effect did not happen. */
interface RequeueAction extends OperatorAction {
  statement?: OperatorStatement;
}

/** States an operator may retry from. */
const RETRYABLE_STATES: readonly WorkState[] = [WorkState.failed_terminal, WorkState.unknown, WorkState.quarantined];

/**
 * Moves the item to queued (fence + 1, fresh attempt budget, audited in the same conditional write), then
 * sends a `wake` message. The row commits first: a failed send is reported as `deferred`, never undone.
 */
async function requeueAndWake(
  deps: AdminDeps,
  identity: ValidIdentity,
  allowedFrom: readonly WorkState[],
  action: RequeueAction,
  auditAction: string,
): Promise<RequeueResult> {
  const now = adminClock(deps).now();
  const shard = deps.store.deadlines.shardOf(identity);
  const item = await deps.store.operate(identity, allowedFrom, (current) => {
    assertEffectStatement(current, action.statement, now);
    return requeueTransition(current, { ...action, auditAction }, shard, now);
  });
  const report = await sendWakeSignals(deps.sqs, deps.queueUrl, [item]);
  return { item, wake: report.sent === 1 ? 'sent' : 'deferred' };
}

/**
 * A job whose effect may have happened and that no lookup can settle is never run again on an operator's word
 * alone: the requeue needs the statement that the effect did not happen. That is a class D job (no key, no
 * lookup; an item without a recorded class is treated as one), and a class C job whose last attempt started
 * longer ago than the provider keeps its keys (`keyRetentionMs` recorded by the claim: its lookup can no longer
 * tell). The check reads the item the conditional write is based on (same fence), so a claim in between makes
 * the write fail instead of slipping through.
 */
function assertEffectStatement(item: WorkItem, statement: OperatorStatement | undefined, now: number): void {
  if (item.effectMayHaveHappened !== true || statement === 'effect_did_not_happen') return;
  const why = unsettledEffect(item, now);
  if (why === undefined) return;
  throw new OperatorStatementRequiredError(
    `${formatIdentity(item)} ${why} whose effect may have happened; ` +
      'check the external system, and requeue only with the statement that the effect did not happen ' +
      '(effectDidNotHappen: true, CLI --effect-did-not-happen); nothing was changed',
    'effect_did_not_happen',
    item,
  );
}

/** Why no lookup can settle the item's effect (class D, or class C past its key window), or undefined. */
function unsettledEffect(item: WorkItem, now: number): string | undefined {
  if (item.targetClass === undefined || item.targetClass === 'D') {
    return 'is a class D job (no idempotency key, no lookup)';
  }
  if (item.targetClass !== 'C' || item.keyRetentionMs === undefined) return undefined;
  const lastAttemptAt = item.ah?.at(-1)?.s ?? item.updatedAt;
  if (now - lastAttemptAt <= item.keyRetentionMs) return undefined;
  return `is a class C job whose last attempt is older than the provider keeps its keys (${item.keyRetentionMs} ms), so its lookup cannot tell,`;
}

/**
 * failed_terminal | unknown | quarantined ▶ queued with the same identity and a higher fence, attempts reset,
 * audited; then a wake-up. A class D item whose effect may have happened (or a class C one whose last attempt is
 * older than its provider's key retention window) needs `effectDidNotHappen: true`
 * (else OperatorStatementRequiredError, nothing changed). Missing ▶ ItemNotFoundError; other state or a concurrent change ▶ IllegalTransitionError.
 * @example
 * await retryItem(deps, { tenantId: 'acme', operationId: 'refund-r_815' }, { actor, reason: 'provider fixed' });
 */
async function retryItem(deps: AdminDeps, identityInput: JobIdentity, input: RetryInput): Promise<RequeueResult> {
  const identity = parseIdentity(identityInput);
  const valid = parseInput(retrySchema, input, 'retry');
  return requeueAndWake(deps, identity, RETRYABLE_STATES, requeueAction(valid), 'retry');
}

/** Input of retry: who, why, and whether the operator states that the effect did not happen. */
interface RetryInput extends OperatorAction {
  effectDidNotHappen?: boolean;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const retrySchema = z.lazy(() => z.extend(actionObjectSchema(), { effectDidNotHappen: z.optional(z.boolean()) }));

/** The requeue action an operator's input stands for (the statement only when explicitly true). */
function requeueAction(input: RetryInput): RequeueAction {
  return {
    actor: input.actor,
    ...(input.caller ? { caller: input.caller } : {}),
    reason: input.reason,
    ...(input.effectDidNotHappen === true ? { statement: 'effect_did_not_happen' as const } : {}),
  };
}

export { RETRYABLE_STATES, type RequeueResult, type RetryInput, requeueAction, requeueAndWake, retryItem };
