/**
 * Lifecycle of a work item. Only the holder of the current fence moves an item out of `claimed`;
 * everyone else (cancel, sweeper, admin) raises the fence when they change it.
 */
const WorkState = {
  /**
   * Created for a job type that requires approval, before any attempt: no lease, nothing run, not claimable.
   * Leaves by an audited approve (▶ queued, bound to the payload hash the approver saw), reject (▶ cancelled) or
   * the sweeper once `approvalExpiresAt` passed (▶ cancelled).
   */
  awaiting_approval: 'awaiting_approval',
  /** Waiting to be claimed once `availableAt` has passed. */
  queued: 'queued',
  /** Held by one worker under one fence until `leaseExpiresAt`; another claim after expiry raises the fence. */
  claimed: 'claimed',
  /** Effect confirmed and recorded under the winning fence; replays return this outcome. */
  succeeded: 'succeeded',
  /** A confirmed failure that retrying cannot fix; a new operation is needed. */
  failed_terminal: 'failed_terminal',
  /** Outcome could not be confirmed: neither success nor failure. Leaves only by an audited operator action (resolve, retry, cancel). */
  unknown: 'unknown',
  /** Input could not be interpreted (schema, version, hash mismatch); the producer's owner must act. */
  quarantined: 'quarantined',
  /** Cancelled by an operator; the fence was raised so the running worker's writes are rejected. */
  cancelled: 'cancelled',
} as const;

/** One of the eight work-item states. */
type WorkState = (typeof WorkState)[keyof typeof WorkState];

const WORK_STATES = Object.values(WorkState) as readonly WorkState[];

/**
 * States that wait for a person (listed, counted and aged by the admin API through the parked index): the three an
 * attempt parks in, and awaiting_approval, which a job enters before any attempt.
 */
const PARKED_STATES = [
  WorkState.unknown,
  WorkState.quarantined,
  WorkState.failed_terminal,
  WorkState.awaiting_approval,
] as const;

/** States from which no worker will act again without an admin action. */
const FINISHED_STATES: readonly WorkState[] = [
  WorkState.succeeded,
  WorkState.failed_terminal,
  WorkState.unknown,
  WorkState.quarantined,
  WorkState.cancelled,
];

/** True when the state waits for an operator. */
function isParkedState(state: WorkState): boolean {
  return (PARKED_STATES as readonly WorkState[]).includes(state);
}

export { FINISHED_STATES, isParkedState, PARKED_STATES, WORK_STATES, WorkState };
