import { BusinessConditionError, FenceRejectedError } from '../errors.js';
import { WriterAttribute } from '../rules.js';
import type { Claim } from '../store/index.js';
import { type BusinessCondition, unmetExpectations } from './conditions.js';
import { FenceRejectReason, type FenceRule, fenceVerdict, landedAlready } from './fence-rules.js';

/** What a failed fenced write means, judged from the item read back after the failure. */
type RejectionVerdict =
  | { readonly kind: 'applied' }
  | { readonly kind: 'fence'; readonly reason: FenceRejectReason }
  | { readonly kind: 'business'; readonly unmet: readonly string[] };

/** What classification needs to know about the write that failed. */
interface RejectedWrite {
  readonly rule: FenceRule;
  readonly fence: number;
  readonly token: string;
  readonly operation: string;
  readonly where?: BusinessCondition | undefined;
}

/**
 * Classifies a failed conditional write. A write of mine that already landed (lost response) is `applied`;
 * otherwise the fence part is evaluated in code on the item: failing it is a fence rejection, passing it
 * means the caller's business condition failed. Pure.
 */
function classifyRejection(current: Record<string, unknown> | undefined, write: RejectedWrite): RejectionVerdict {
  if (landedAlready(current, write.rule, write.fence, write.token)) return { kind: 'applied' };
  const verdict = fenceVerdict(current, write.rule, write.fence, write.operation);
  if (!verdict.holds) return { kind: 'fence', reason: verdict.reason };
  return { kind: 'business', unmet: unmetExpectations(current, write.where) };
}

/**
 * The one reason proving this claim no longer owns the record: a newer claim of the same operation wrote it.
 * It aborts the job as lost ownership. Every other reason is a mistake in the job's own writes (the same
 * record twice in one claim, a sequence not newer, a confirm without a stamp, a record another operation
 * fences): the attempt ends as a job error named after the reason, never as lost ownership.
 */
const SUPERSEDED_REASONS: readonly FenceRejectReason[] = [FenceRejectReason.newer_claim];

const HINTS: Record<FenceRejectReason, string> = {
  newer_claim: 'a newer claim of this operation wrote it; stop, this attempt is superseded',
  same_claim_already_wrote: 'this claim already advanced it once; use sequenced writes for several writes per claim',
  sequence_not_newer: 'a write with the same or a higher sequence number of this claim already landed',
  not_stamped_by_claim: 'only the claim that stamped the record may confirm it',
  foreign_operation: 'another operation fences this record; a record shared by operations needs class A',
};

/** The error for a fence rejection, with the stored writer attributes (never the record's key) as its fields. */
function fenceRejectedError(
  claim: Claim,
  tableName: string,
  rule: FenceRule,
  reason: FenceRejectReason,
  current: Record<string, unknown> | undefined,
): FenceRejectedError {
  const epoch = current?.[WriterAttribute.epoch];
  return new FenceRejectedError(
    `${rule.kind} write to ${tableName} refused by the fence (${reason}): claim fence ${claim.fence}, record writer_epoch ${String(epoch)}; ${HINTS[reason]}`,
    current,
    {
      tableName,
      rule: rule.kind,
      reason,
      superseded: SUPERSEDED_REASONS.includes(reason),
      fence: claim.fence,
      ...(rule.kind === 'sequence' ? { seq: rule.seq } : {}),
      recordEpoch: epoch,
      recordSeq: current?.[WriterAttribute.seq],
    },
  );
}

/** The error for a failed business condition: the fence allowed the write; `unmet` names the attributes. */
function businessConditionError(
  tableName: string,
  unmet: readonly string[],
  current: Record<string, unknown> | undefined,
  extra: { label?: string; write?: { index: number; kind: string }; cause?: unknown } = {},
): BusinessConditionError {
  const detail =
    unmet.length > 0
      ? `unmet: ${unmet.join(', ')}`
      : current === undefined
        ? 'the record does not exist'
        : 'the record changed between the write and the read-back';
  return new BusinessConditionError(
    `${extra.label ?? 'write'} to ${tableName} refused by its business condition (${detail})`,
    current,
    { cause: extra.cause, ...extra.write, tableName, unmet: [...unmet], exists: current !== undefined },
  );
}

export {
  businessConditionError,
  classifyRejection,
  fenceRejectedError,
  type RejectedWrite,
  type RejectionVerdict,
  SUPERSEDED_REASONS,
};
