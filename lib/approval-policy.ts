import * as z from 'zod/mini';

/**
 * Who may approve a job: anyone the admin API lets act, or only a principal other than the one that produced the
 * job (the SQS SenderId's IAM principal, compared without its session name, which whoever assumed the role chose).
 */
const Approvers = { anyone: 'anyone', notProducer: 'not-producer' } as const;
type Approvers = (typeof Approvers)[keyof typeof Approvers];

/** Longest an approval may wait before the sweeper cancels the job (90 days). */
const MAX_APPROVAL_WAIT_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * A job type's approval gate: `required: true` gates every job of the type, `when(payload)` only the jobs whose
 * parsed payload it returns true for (a predicate that throws gates the job: the safe direction). A gated job waits
 * in awaiting_approval, before any attempt, until approved, rejected, or `expiresAfterMs` passed (then cancelled).
 */
type ApprovalPolicy<Payload = unknown> = (
  | { readonly required: true }
  | {
      /** Method syntax on purpose: the worker calls it only with what this job's own schema parsed (as `run`). */
      when(payload: Payload): boolean;
    }
) & {
  /** Who may approve (default anyone). */
  readonly approvers?: Approvers;
  /** How long the job waits for a decision before the sweeper cancels it (1 s to 90 days). */
  readonly expiresAfterMs: number;
};

/** The fields every approval policy has, new schemas per call (built inside the policy's lazy schema). */
function commonFields() {
  return {
    approvers: z.optional(z.enum([Approvers.anyone, Approvers.notProducer])),
    expiresAfterMs: z.number().check(z.int(), z.gte(1_000), z.lte(MAX_APPROVAL_WAIT_MS)),
  };
}

// Built on first use (z.lazy: the same checks and issues), not at import: a cold start whose first events never
// reach this schema does not pay for building it (BENCHMARKS.md figure 5).
/** The shape defineJob checks an approval policy against: exactly one of `required: true` or `when`. */
const approvalPolicySchema = z.lazy(() =>
  z
    .strictObject({
      required: z.optional(z.literal(true, 'required must be true (leave the policy out for no approval)')),
      when: z.optional(
        z.custom<(payload: unknown) => boolean>((value) => typeof value === 'function', 'when must be a function'),
      ),
      ...commonFields(),
    })
    .check(
      z.refine((policy) => (policy.required === true) !== (policy.when !== undefined), {
        message: 'give exactly one of required: true or when(payload)',
        path: ['required'],
      }),
    ),
);

/** What a gated job's new row records: when the wait ends, who may approve, and who produced it (when known). */
interface ApprovalGate {
  readonly expiresAt: number;
  readonly approvers: Approvers;
  /** The producer's IAM principal id (SenderId without the session), recorded for `not-producer`. */
  readonly producerId?: string;
}

/**
 * Whether `payload` (already parsed by the job's schema) needs approval under `policy`. Never throws: a predicate
 * that throws or returns anything but false gates the job, so a bug in it can only ask for an approval too many.
 */
function requiresApproval<Payload>(policy: ApprovalPolicy<Payload> | undefined, payload: Payload): boolean {
  if (policy === undefined) return false;
  if ('required' in policy) return true;
  try {
    return policy.when(payload) !== false;
  } catch {
    return true;
  }
}

/** The principal part of an IAM unique id (`AROA…:session` ▶ `AROA…`): the session name is the caller's choice. */
function principalOf(uniqueId: string): string {
  const colon = uniqueId.indexOf(':');
  return colon < 0 ? uniqueId : uniqueId.slice(0, colon);
}

/**
 * The gate a new row of a gated job records at `now`: expiry, approvers, and the producer's principal (from the
 * message's SenderId, when SQS reported one). Undefined when the payload needs no approval.
 */
function approvalGateFor<Payload>(
  policy: ApprovalPolicy<Payload> | undefined,
  payload: Payload,
  now: number,
  senderId?: string,
): ApprovalGate | undefined {
  if (policy === undefined || !requiresApproval(policy, payload)) return undefined;
  return {
    expiresAt: now + policy.expiresAfterMs,
    approvers: policy.approvers ?? Approvers.anyone,
    ...(senderId !== undefined && senderId !== '' ? { producerId: principalOf(senderId) } : {}),
  };
}

/**
 * The gate of a row written where the payload body is not at hand (a delayed or scheduled job's row-first send):
 * any policy gates it, since a predicate cannot be asked. Undefined without a policy.
 */
function approvalGateUnseen(policy: ApprovalPolicy<never> | undefined, now: number): ApprovalGate | undefined {
  if (policy === undefined) return undefined;
  return { expiresAt: now + policy.expiresAfterMs, approvers: policy.approvers ?? Approvers.anyone };
}

export {
  type ApprovalGate,
  type ApprovalPolicy,
  Approvers,
  approvalGateFor,
  approvalGateUnseen,
  approvalPolicySchema,
  MAX_APPROVAL_WAIT_MS,
  principalOf,
  requiresApproval,
};
