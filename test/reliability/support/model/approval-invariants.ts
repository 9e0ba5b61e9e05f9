import { payloadHash } from '../../../../lib/hashing.js';
import type { WorkItem } from '../../../../lib/store/work-items/work-item.js';
import { racingApproval } from './approval-model.js';
import { type Command, IDENTITY_COUNT, payloadOf, sweeps } from './commands.js';
import type { Outcome } from './reference-model.js';

/** Throws the InvariantViolation for a broken rule (invariants.ts's `fail`, passed in to keep the files acyclic). */
type Fail = (step: number, invariant: string, detail: unknown) => never;

/** What the engine held for one identity before and after a step. */
interface Seen {
  item: WorkItem | undefined;
  record: Record<string, unknown> | undefined;
}

const ok = (outcome: Outcome | undefined) => outcome?.kind === 'operator' && outcome.result === 'ok';

/** The approval a command sent for `id` (its payload hash), if it sent one that the engine reported done. */
function approvalOf(command: Command, outcome: Outcome, id: number): { hash: string } | undefined {
  if (command.kind === 'approve' && command.id === id && ok(outcome))
    return { hash: payloadHash(payloadOf(id, command.conflict)) };
  if (command.kind === 'race' && command.id === id && outcome.kind === 'race' && ok(outcome.approve))
    return { hash: payloadHash(payloadOf(id, racingApproval(id).conflict)) };
  return undefined;
}

/**
 * The approval gate's invariants, on what the engine holds (independent of the model): no job runs while
 * awaiting_approval (no attempt, no lease, no effect mark, no record, no fence raised); a job enters the state only
 * when created; it leaves only by an approval of its own payload hash (▶ queued) or a reject, cancel or expiry
 * (▶ cancelled); a gated job is claimed only once approved; an approval racing a reject, cancel or expiry leaves
 * exactly one outcome.
 */
class ApprovalOracle {
  private readonly gated: boolean[] = Array.from({ length: IDENTITY_COUNT }, () => false);

  constructor(private readonly fail: Fail) {}

  /** Checks the step's change of identity `id`. */
  check(step: number, id: number, command: Command, outcome: Outcome, before: Seen | undefined, now: Seen): void {
    const item = now.item;
    if (!item) return;
    const was = before?.item;
    if (item.state === 'awaiting_approval') {
      if (was && was.state !== 'awaiting_approval') {
        this.fail(step, 'a job awaits approval only from its creation', { id, was, item });
      }
      this.gated[id] = true;
      const ran =
        item.attempts !== 0 || item.effectMayHaveHappened === true || item.leaseOwner !== undefined || now.record;
      if (ran || (was !== undefined && item.fence !== was.fence)) {
        this.fail(step, 'no job runs while awaiting_approval (no attempt, no effect)', {
          id,
          item,
          record: now.record,
        });
      }
    }
    if (this.gated[id] && item.state === 'claimed' && item.approvedAt === undefined) {
      this.fail(step, 'a gated job is claimed only once approved', { id, item });
    }
    const approval = approvalOf(command, outcome, id);
    if (approval && item.payloadHash !== approval.hash) {
      this.fail(step, 'an approval never covers another payload hash', { id, approval, item });
    }
    if (was?.state === 'awaiting_approval' && item.state !== 'awaiting_approval') {
      this.checkLeaving(step, id, command, approval !== undefined, item);
    }
    if (command.kind === 'race' && command.id === id && was?.state === 'awaiting_approval') {
      this.checkRace(step, id, command, outcome, item);
    }
  }

  /** awaiting ▶ queued only by an approval that reported done; ▶ cancelled only by a decision, cancel or sweep. */
  private checkLeaving(step: number, id: number, command: Command, approved: boolean, item: WorkItem) {
    const decidedHere = 'id' in command && command.id === id;
    const byCancel = (decidedHere && ['reject', 'cancel', 'race'].includes(command.kind)) || sweeps(command);
    const left =
      item.state === 'queued'
        ? approved && item.approvedAt !== undefined
        : item.state === 'cancelled' && byCancel && item.attempts === 0;
    if (!left)
      this.fail(step, 'a job leaves awaiting_approval only by approve, reject, cancel or expiry', { id, item });
  }

  /**
   * One outcome: against a reject or the expiry exactly one call wins (approved ▶ queued, else ▶ cancelled); against
   * a cancel, a refused approval means cancelled, and a cancel that also succeeded came after it (▶ cancelled).
   */
  private checkRace(
    step: number,
    id: number,
    command: Extract<Command, { kind: 'race' }>,
    outcome: Outcome,
    item: WorkItem,
  ) {
    if (outcome.kind !== 'race') return;
    const approved = ok(outcome.approve);
    const rivalWon = command.rival === 'expire' ? item.errorCode === 'approval_expired' : ok(outcome.rival);
    const single = command.rival === 'cancel' ? approved || rivalWon : approved !== rivalWon;
    const expected = rivalWon ? 'cancelled' : 'queued';
    if (!single || item.state !== expected) {
      this.fail(step, `an approval racing a ${command.rival} leaves exactly one outcome`, { id, outcome, item });
    }
  }
}

export { ApprovalOracle };

/** How often the approval gate's transitions happened in a run (printed, and required above 0 by the test). */
interface ApprovalTally {
  gated: number;
  approved: number;
  refusedHash: number;
  refusedApprover: number;
  rejected: number;
  expired: number;
  raceApproveWon: number;
  raceRivalWon: number;
}

/** A zeroed tally. */
function emptyApprovalTally(): ApprovalTally {
  return {
    gated: 0,
    approved: 0,
    refusedHash: 0,
    refusedApprover: 0,
    rejected: 0,
    expired: 0,
    raceApproveWon: 0,
    raceRivalWon: 0,
  };
}

/** Adds what one command did on the engine to `tally`. */
function tallyApproval(tally: ApprovalTally, command: Command, outcome: Outcome): void {
  if (command.kind === 'enqueue' && command.gate !== 'none' && outcome.kind === 'enqueue')
    tally.gated += outcome.result === 'created' ? 1 : 0;
  const decision = outcome.kind === 'operator' ? outcome.result : undefined;
  if (command.kind === 'approve') {
    tally.approved += decision === 'ok' ? 1 : 0;
    tally.refusedHash += decision === 'payload_hash_mismatch' ? 1 : 0;
    tally.refusedApprover += decision === 'approver_is_producer' ? 1 : 0;
  }
  if (command.kind === 'reject') tally.rejected += decision === 'ok' ? 1 : 0;
  if (outcome.kind === 'sweep') tally.expired += outcome.expired;
  if (outcome.kind === 'race') {
    if (outcome.rival.kind === 'sweep') tally.expired += outcome.rival.expired;
    if (ok(outcome.approve)) tally.raceApproveWon += 1;
    else if (ok(outcome.rival) || (outcome.rival.kind === 'sweep' && outcome.rival.expired > 0))
      tally.raceRivalWon += 1;
  }
}

export { type ApprovalTally, emptyApprovalTally, tallyApproval };
