// The words a fence verdict is stated in. A leaf module (it imports nothing), so the errors that carry a verdict
// (lib/errors.ts) can name these types without an import cycle.

/**
 * How a write relates to the stored fence:
 * `advance` — one write per claim: accepted when the stored epoch is below mine (or absent);
 * `sequence` — several ordered writes per claim: epoch below mine, or equal with a lower seq;
 * `confirm` — only the claim that stamped the record: epoch equal to mine.
 */
type FenceRule =
  | { readonly kind: 'advance' }
  | { readonly kind: 'sequence'; readonly seq: number }
  | { readonly kind: 'confirm' };

/** Why the fence refused a write; all of them mean "this claim must not change the record". */
const FenceRejectReason = {
  /** A newer claim of this operation wrote the record: I am superseded. */
  newer_claim: 'newer_claim',
  /** This claim already advanced the record once; several writes per claim need sequenced writes. */
  same_claim_already_wrote: 'same_claim_already_wrote',
  /** A sequenced write at or below the last sequence number of my claim arrived (reordered or repeated). */
  sequence_not_newer: 'sequence_not_newer',
  /** A confirm by a claim that did not stamp the record (never stamped, or stamped by an older claim). */
  not_stamped_by_claim: 'not_stamped_by_claim',
  /** The record is fenced by another operation: a shared record, which class B cannot protect. */
  foreign_operation: 'foreign_operation',
} as const;
type FenceRejectReason = (typeof FenceRejectReason)[keyof typeof FenceRejectReason];

/** The error code a job's attempt ends with when the fence refused its own write (`fence_same_claim_already_wrote`). */
function fenceRefusalCode(reason: FenceRejectReason | undefined): string {
  return `fence_${reason ?? 'refused'}`;
}

/**
 * Error codes of refusals by a record whose epoch EQUALS the writer's fence: a job bug, or a restore that issued
 * a fence a record had already seen from another claim. raise-fences requeues items parked with them.
 */
const EQUAL_EPOCH_REFUSAL_CODES: readonly string[] = [
  fenceRefusalCode(FenceRejectReason.same_claim_already_wrote),
  fenceRefusalCode(FenceRejectReason.sequence_not_newer),
];

/**
 * The error code of a job parked because a record holds a `writer_epoch` above every fence the jobs table has issued
 * for it (the jobs table restored to an earlier point than the record tables): no claim could ever write it.
 */
const RESTORE_MISMATCH_CODE = 'restore_mismatch';

/** Error codes of items a restore parked, which raise-fences queues again once every fence is above the records'. */
const RESTORE_REQUEUE_CODES: readonly string[] = [...EQUAL_EPOCH_REFUSAL_CODES, RESTORE_MISMATCH_CODE];

export {
  EQUAL_EPOCH_REFUSAL_CODES,
  FenceRejectReason,
  type FenceRule,
  fenceRefusalCode,
  RESTORE_MISMATCH_CODE,
  RESTORE_REQUEUE_CODES,
};
