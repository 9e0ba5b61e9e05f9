import * as z from 'zod/mini';
import {
  IllegalTransitionError,
  isLeasefenceError,
  OperatorStatementRequiredError,
  StatementTooEarlyError,
} from '../errors.js';
import { formatIdentity, type JobIdentity, parseIdentity, type ValidIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { sendWakeSignals } from '../messaging/wake.js';
import { WorkState } from '../states.js';
import type { OperatorStatement, WorkItem } from '../store/index.js';
import { DEFAULT_WORKER_MAX_RUN_MS, holdersGoneAt, type OperatorAction, requeueTransition } from '../store/index.js';
import { writeAuditRecord } from './audit.js';
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
 * sends a `wake` message. The row commits first: a failed send is reported as `deferred`, never undone. With the
 * statement "the effect did not happen", the write lands only once no holder of the last claim can still run
 * (deps.workerMaxRunMs after it, checked inside the write); before that ▶ StatementTooEarlyError, nothing changed,
 * the refusal audited.
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
  const workerMaxRunMs = deps.workerMaxRunMs ?? DEFAULT_WORKER_MAX_RUN_MS;
  let observed: WorkItem | undefined;
  const item = await deps.store
    .operate(identity, allowedFrom, (current) => {
      observed = current;
      assertEffectStatement(current, action.statement, now);
      return requeueTransition(current, { ...action, auditAction, workerMaxRunMs }, shard, now);
    })
    .catch(async (error: unknown) => {
      const early = action.statement ? statementTooEarly(error, observed, workerMaxRunMs, now) : undefined;
      if (early === undefined) throw error;
      await auditEarlyStatement(deps, identity, action, auditAction, early);
      throw early;
    });
  const report = await sendWakeSignals(deps.sqs, deps.queueUrl, [item]);
  return { item, wake: report.sent === 1 ? 'sent' : 'deferred' };
}

/**
 * Why a requeue with the statement was refused when the row the write refused still has the state and fence it
 * was based on and its last claim is within `workerMaxRunMs` of `now`: the holder condition. Else undefined.
 */
function statementTooEarly(
  error: unknown,
  observed: WorkItem | undefined,
  workerMaxRunMs: number,
  now: number,
): StatementTooEarlyError | undefined {
  if (!isLeasefenceError(error, IllegalTransitionError) || observed === undefined) return undefined;
  const current = error.current as WorkItem | undefined;
  if (current?.state !== observed.state || current.fence !== observed.fence) return undefined;
  const acceptedFrom = holdersGoneAt(current, workerMaxRunMs);
  if (acceptedFrom <= now) return undefined;
  return new StatementTooEarlyError(
    `${formatIdentity(current)}: a worker holding its last claim may still be running (its invocation can outlive ` +
      `its lease by up to ${workerMaxRunMs} ms), and its late call would be a second attempt; the statement that ` +
      `the effect did not happen is accepted from ${new Date(acceptedFrom).toISOString()}; nothing was changed`,
    acceptedFrom,
    current,
  );
}

/** A refused early statement leaves one `<action>_refused` record in the audit trail; a failed audit write is dropped. */
async function auditEarlyStatement(
  deps: AdminDeps,
  identity: ValidIdentity,
  action: RequeueAction,
  auditAction: string,
  early: StatementTooEarlyError,
): Promise<void> {
  await writeAuditRecord(deps, {
    actor: action.actor,
    ...(action.caller ? { caller: action.caller } : {}),
    action: `${auditAction}_refused`,
    reason: `statement too early: accepted from ${new Date(early.acceptedFrom).toISOString()}; reason given: ${action.reason}`,
    tenantId: identity.tenantId,
    operationId: identity.operationId,
    counts: { acceptedFrom: early.acceptedFrom },
  }).catch(() => undefined);
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
