import * as z from 'zod/mini';
import { type JobIdentity, parseIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { outcomeCodeSchema } from '../rules.js';
import { WorkState } from '../states.js';
import type { CallerIdentity, WorkItem } from '../store/index.js';
import { resolveTransition } from '../store/index.js';
import { type AdminDeps, adminClock } from './deps.js';
import { type RequeueResult, requeueAction, requeueAndWake } from './retry.js';
import { actorSchema, callerSchema, reasonSchema } from './schemas.js';

/** Where an unknown item may go once an operator has reconciled it with the real system. */
const ResolveTarget = {
  succeeded: WorkState.succeeded,
  failed_terminal: WorkState.failed_terminal,
  queued: WorkState.queued,
} as const;
type ResolveTarget = (typeof ResolveTarget)[keyof typeof ResolveTarget];

/** The operator's verdict: target state, why, who, and optionally the outcome/error code to record. */
interface ResolveInput {
  to: ResolveTarget;
  reason: string;
  actor: string;
  caller?: CallerIdentity;
  outcomeCode?: string;
  /** Only with `queued`: the operator states that the effect did not happen (required for class D). */
  effectDidNotHappen?: boolean;
}

/** The item as committed; `wake` only for `queued` (see requeueAndWake). */
interface ResolveResult {
  item: WorkItem;
  wake?: RequeueResult['wake'];
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const resolveSchema = z.lazy(() =>
  z
    .strictObject({
      to: z.enum([ResolveTarget.succeeded, ResolveTarget.failed_terminal, ResolveTarget.queued]),
      reason: reasonSchema,
      actor: actorSchema,
      caller: z.optional(callerSchema),
      outcomeCode: z.optional(outcomeCodeSchema),
      effectDidNotHappen: z.optional(z.boolean()),
    })
    .check(
      z.refine((value) => value.to !== ResolveTarget.queued || value.outcomeCode === undefined, {
        message: 'outcomeCode is only accepted when resolving to succeeded or failed_terminal',
        path: ['outcomeCode'],
      }),
      z.refine((value) => value.to === ResolveTarget.queued || value.effectDidNotHappen === undefined, {
        message: 'effectDidNotHappen is only accepted when resolving to queued',
        path: ['effectDidNotHappen'],
      }),
    ),
);

/**
 * unknown ▶ succeeded | failed_terminal (fence + 1, audited in the same conditional write), or ▶ queued with
 * a fresh attempt budget followed by a wake-up (a class D item whose effect may have happened, or a class C one
 * past its provider's key retention window, only with
 * `effectDidNotHappen: true`, else OperatorStatementRequiredError). Only from unknown: anything else, or a concurrent change,
 * ▶ IllegalTransitionError; missing ▶ ItemNotFoundError; bad input ▶ InvalidInputError, nothing written.
 * @example
 * await resolveItem(deps, identity, { to: 'succeeded', reason: 'provider shows the refund', actor, outcomeCode: 'refunded' });
 */
async function resolveItem(deps: AdminDeps, identityInput: JobIdentity, input: ResolveInput): Promise<ResolveResult> {
  const identity = parseIdentity(identityInput);
  const valid = parseInput(resolveSchema, input, 'resolve');
  const action = { actor: valid.actor, reason: valid.reason, ...(valid.caller ? { caller: valid.caller } : {}) };
  if (valid.to === ResolveTarget.queued) {
    return requeueAndWake(deps, identity, [WorkState.unknown], requeueAction(valid), 'resolve_queued');
  }
  const to = valid.to;
  const now = adminClock(deps).now();
  const item = await deps.store.operate(identity, [WorkState.unknown], (current) =>
    resolveTransition(
      current,
      to,
      { ...action, ...(valid.outcomeCode !== undefined ? { outcomeCode: valid.outcomeCode } : {}) },
      now,
    ),
  );
  return { item };
}

export { type ResolveInput, type ResolveResult, ResolveTarget, resolveItem };
