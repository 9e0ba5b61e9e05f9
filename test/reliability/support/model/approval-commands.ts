import fc from 'fast-check';

/*
 * The approval gate's transitions in the shared interleaving model (issue 26): an enqueue may create its job
 * awaiting_approval; approve (with the row's payload hash or another one, by the producer, another principal or an
 * unauthenticated caller), reject, and the race of an approval against a cancel, a reject or the sweeper's expiry.
 */

/** The gate an enqueue asks for: none, anyone may approve, or only a principal other than the producer. */
type GateKind = 'none' | 'anyone' | 'not-producer';

/** Who sends an approval: no authenticated caller, the job's producer, or another principal. */
type Approver = 'none' | 'producer' | 'other';

/** What an approval races: an operator cancel, a reject, or the sweeper's expiry (the clock first moves past it). */
type Rival = 'cancel' | 'reject' | 'expire';

/** The approval commands; `conflict` approves the hash of the other payload of the identity (never the row's). */
type ApprovalCommand =
  | { kind: 'approve'; id: number; conflict: boolean; approver: Approver }
  | { kind: 'reject'; id: number }
  | { kind: 'race'; id: number; rival: Rival };

/** How long a gated job waits for a decision (ms): a few leases, so pauses and advances pass it. */
const APPROVAL_WAIT_MS = 2_000;

/** The producer's IAM principal, recorded on a `not-producer` row; the other approver is a different principal. */
const Principals = { producer: 'AROAPRODUCER0000000', other: 'AROAOTHERAPPROVER00' } as const;

/** An enqueue's gate: half the jobs have none, so the rest of the model keeps its coverage. */
const gateArbitrary: fc.Arbitrary<GateKind> = fc.constantFrom('none', 'none', 'anyone', 'not-producer');

/** Weighted generators of the approval commands over the identities `id` draws. */
function approvalArbitraries(id: fc.Arbitrary<number>): Array<fc.WeightedArbitrary<ApprovalCommand>> {
  return [
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('approve' as const),
        id,
        conflict: fc.integer({ min: 0, max: 2 }).map((roll) => roll === 0),
        approver: fc.constantFrom('other' as const, 'other' as const, 'producer' as const, 'none' as const),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('reject' as const), id }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('race' as const),
        id,
        rival: fc.constantFrom('cancel' as const, 'reject' as const, 'expire' as const),
      }),
    },
  ];
}

export {
  APPROVAL_WAIT_MS,
  type ApprovalCommand,
  type Approver,
  approvalArbitraries,
  type GateKind,
  gateArbitrary,
  Principals,
  type Rival,
};
