import { writerOperation } from '../../../../lib/fenced/fence-rules.js';
import { WORK_STATES } from '../../../../lib/states.js';
import { tenantBucketOf } from '../../../../lib/store/table.js';
import type { WorkItem } from '../../../../lib/store/work-items/work-item.js';
import { ApprovalOracle } from './approval-invariants.js';
import { type Command, IDENTITY_COUNT, identityOf, sweeps, twinOf } from './commands.js';
import type { ModelItem, ModelRecord, Outcome } from './reference-model.js';

/** What the engine holds for one identity after a step. */
interface Observation {
  item: WorkItem | undefined;
  record: Record<string, unknown> | undefined;
}

/** A broken invariant: which one, at which step, and what was seen. */
class InvariantViolation extends Error {
  override readonly name = 'InvariantViolation';
}

const PARKED = ['unknown', 'quarantined', 'failed_terminal', 'awaiting_approval'];
/** Throws the InvariantViolation for `invariant` at `step`, with what was seen. */
const fail = (step: number, invariant: string, detail: unknown): never => {
  throw new InvariantViolation(`step ${step}: ${invariant}: ${JSON.stringify(detail)}`);
};

/**
 * The invariants, checked on what the engine holds after every step, independently of the model's own
 * bookkeeping. It remembers the last observation of each identity (fence, record epoch, state, item).
 */
class InvariantOracle {
  private readonly last: Array<Observation | undefined> = Array.from({ length: IDENTITY_COUNT }, () => undefined);
  private readonly completions: number[] = Array.from({ length: IDENTITY_COUNT }, () => 0);
  private readonly approvals = new ApprovalOracle(fail);

  /** Checks one step: `observed` holds every identity the step may have changed, plus the twins of those. */
  check(
    step: number,
    command: Command,
    outcome: Outcome,
    holderFence: number,
    observed: Map<number, Observation>,
    holderClock?: { now: number; deadline: number },
  ): void {
    this.checkLeaseDoubt(step, command, outcome, holderClock, observed);
    for (const [id, now] of observed) {
      const before = this.last[id];
      const touchedByStep = sweeps(command) || !('id' in command) || command.id === id;
      if (!touchedByStep && JSON.stringify(before?.item) !== JSON.stringify(now.item)) {
        fail(step, 'no effect crosses tenants (the twin identity changed)', {
          id,
          before: before?.item,
          now: now.item,
        });
      }
      this.checkItem(step, id, command, before, now);
      this.checkRecord(step, id, command, outcome, holderFence, before, now);
      this.approvals.check(step, id, command, outcome, before, now);
      this.last[id] = now;
    }
    if (command.kind === 'complete' && outcome.kind === 'holder' && outcome.ok) {
      const item = observed.get(command.id)?.item;
      if (item?.state !== 'succeeded' || item.fence !== holderFence) {
        fail(step, 'a completion reported as done is the one that stands (my fence)', { item, holderFence });
      }
    }
  }

  private checkItem(step: number, id: number, command: Command, before: Observation | undefined, now: Observation) {
    const item = now.item;
    if (before?.item && !item) fail(step, 'an enqueued job never disappears', { id });
    if (!item) return;
    if ((before?.item?.fence ?? 0) > item.fence)
      fail(step, 'fences never decrease', { id, before: before?.item?.fence, now: item.fence });
    if (before?.item?.state !== 'succeeded' && item.state === 'succeeded') {
      this.completions[id] = (this.completions[id] ?? 0) + 1;
      if ((this.completions[id] ?? 0) > 1)
        fail(step, 'at most one successful completion per identity', { id, command });
    }
    const final = ['succeeded', 'cancelled'];
    if (before?.item && final.includes(before.item.state) && item.state !== before.item.state) {
      fail(step, 'succeeded and cancelled are never left', { id, before: before.item, item });
    }
    const retried = command.kind === 'retry' && command.id === id;
    if (before?.item?.state === 'failed_terminal' && item.state !== 'failed_terminal' && !retried) {
      fail(step, 'only an operator retry takes an item out of failed_terminal', { id, command });
    }
    const leftUnknown = before?.item?.state === 'unknown' && item.state !== 'unknown';
    // A race's rival cancel is an operator cancel like any other (of an unknown item too).
    const cancels = command.kind === 'race' && command.rival === 'cancel';
    const byAdmin =
      (['resolve', 'cancel', 'retry'].includes(command.kind) || cancels) && 'id' in command && command.id === id;
    if (leftUnknown && !byAdmin)
      fail(step, 'nothing but an admin action takes an item out of unknown', { id, command });
    this.checkEffectMark(step, id, command, before?.item, item);
    checkOneState(step, id, item);
  }

  /**
   * Lease doubt: a guarded write lands only before its worker's local lease deadline, and a renewal never
   * revives a lease that had expired on the renewing worker's clock.
   */
  private checkLeaseDoubt(
    step: number,
    command: Command,
    outcome: Outcome,
    clock: { now: number; deadline: number } | undefined,
    observed: Map<number, Observation>,
  ) {
    if (command.kind === 'guardedWrite' && outcome.kind === 'write' && outcome.ok) {
      if (!clock || clock.now >= clock.deadline) fail(step, 'no guarded write lands in lease doubt', { clock });
    }
    if (command.kind === 'heartbeat' && outcome.kind === 'holder' && outcome.ok) {
      const before = this.last[command.id]?.item?.leaseExpiresAt ?? 0;
      const renewed = observed.get(command.id)?.item?.leaseExpiresAt ?? 0;
      if (clock && renewed > before && before <= clock.now) {
        fail(step, 'a renewal never revives an expired lease', { before, now: clock.now });
      }
    }
  }

  /**
   * The effect mark: every claim sets it (whatever the attempts counter says); only an operator's statement
   * clears it; a class D item with the mark never goes back to queued without that statement.
   */
  private checkEffectMark(step: number, id: number, command: Command, before: WorkItem | undefined, item: WorkItem) {
    const stated = (command.kind === 'retry' || command.kind === 'resolve') && command.id === id && command.statement;
    const claimedNow = item.state === 'claimed' && (before?.state !== 'claimed' || before.fence !== item.fence);
    if (claimedNow && item.effectMayHaveHappened !== true) {
      fail(step, 'every claim marks that an effect may have happened', { id, item });
    }
    if (before?.effectMayHaveHappened === true && item.effectMayHaveHappened !== true && !stated) {
      fail(step, 'only an operator statement clears the effect mark', { id, command });
    }
    const requeued = before && before.state !== 'queued' && item.state === 'queued' && item.attempts === 0;
    if (requeued && before.effectMayHaveHappened === true && before.targetClass === 'D' && !stated) {
      fail(step, 'a class D item whose effect may have happened is requeued only with the statement', { id, command });
    }
  }

  private checkRecord(
    step: number,
    id: number,
    command: Command,
    outcome: Outcome,
    writeFence: number,
    before: Observation | undefined,
    now: Observation,
  ) {
    const epoch = Number(now.record?.writer_epoch ?? 0);
    const previous = Number(before?.record?.writer_epoch ?? 0);
    if (epoch < previous) fail(step, 'a record epoch never goes back', { id, previous, epoch });
    const writes = command.kind === 'write' || command.kind === 'guardedWrite';
    const wrote = writes && command.id === id && outcome.kind === 'write' && outcome.ok;
    if (wrote && writeFence < previous) {
      fail(step, 'a record never accepts a fence lower than one it accepted', { id, previous, writeFence });
    }
    if (!wrote && JSON.stringify(before?.record) !== JSON.stringify(now.record)) {
      fail(step, 'only a fenced write changes a record', { id, before: before?.record, now: now.record });
    }
    const identity = identityOf(id);
    if (
      now.record &&
      (now.record.tenantId !== identity.tenantId || now.record.writer_op !== writerOperation(identity))
    ) {
      fail(step, 'a record carries only its own tenant and operation', { id, record: now.record });
    }
  }
}

/** Exactly one state, and the sparse index attributes of that state and no other. */
function checkOneState(step: number, id: number, item: WorkItem): void {
  const identity = identityOf(id);
  if (!WORK_STATES.includes(item.state)) fail(step, 'every job is in exactly one known state', item);
  if (item.tenantId !== identity.tenantId || item.operationId !== identity.operationId) fail(step, 'identity', item);
  const leased = item.leaseOwner !== undefined && item.leaseExpiresAt !== undefined;
  if (leased !== (item.state === 'claimed')) fail(step, 'a lease exists exactly while claimed', item);
  const inDeadlineIndex = item.deadlineShard !== undefined && item.deadlineAt !== undefined;
  // A job awaiting approval is due in the deadline index at its expiry (the sweeper finds it there).
  if (inDeadlineIndex !== ['queued', 'claimed', 'awaiting_approval'].includes(item.state))
    fail(step, 'deadline index ⇔ queued|claimed|awaiting_approval', item);
  const parked = PARKED.includes(item.state);
  // Parked keys are sharded by the identity's tenant bucket (the bucket of its row's partition key).
  const bucket = tenantBucketOf(identity);
  const parkedRight =
    item.parkedState === `${item.state}#${bucket}` &&
    item.parkedTenantState === `${identity.tenantId}#${bucket}#${item.state}`;
  if (parked ? !parkedRight : item.parkedState !== undefined || item.parkedTenantState !== undefined) {
    fail(step, 'parked index ⇔ parked state', item);
  }
}

/** The engine agrees with the model on the fields the design defines. */
function checkAgainstModel(
  step: number,
  id: number,
  expected: ModelItem | undefined,
  record: ModelRecord,
  now: Observation,
) {
  const item = now.item;
  const actual = item && {
    state: item.state,
    fence: item.fence,
    attempts: item.attempts,
    maxAttempts: item.maxAttempts,
    ...(item.state === 'claimed' ? { leaseExpiresAt: item.leaseExpiresAt } : {}),
    ...(item.state === 'queued' ? { availableAt: item.availableAt } : {}),
    ...(item.state === 'awaiting_approval' ? { approvalExpiresAt: item.approvalExpiresAt } : {}),
    effect: item.effectMayHaveHappened === true,
    targetClass: item.targetClass,
  };
  const wanted = expected && {
    state: expected.state,
    fence: expected.fence,
    attempts: expected.attempts,
    maxAttempts: expected.maxAttempts,
    ...(expected.state === 'claimed' ? { leaseExpiresAt: expected.leaseExpiresAt } : {}),
    ...(expected.state === 'queued' ? { availableAt: expected.availableAt } : {}),
    ...(expected.state === 'awaiting_approval' ? { approvalExpiresAt: expected.approvalExpiresAt } : {}),
    effect: expected.effect,
    targetClass: expected.targetClass,
  };
  if (JSON.stringify(actual) !== JSON.stringify(wanted)) fail(step, 'engine matches the model', { id, actual, wanted });
  const stored = { epoch: now.record?.writer_epoch, seq: now.record?.writer_seq, value: now.record?.value };
  if (JSON.stringify(stored) !== JSON.stringify({ epoch: record.epoch, seq: record.seq, value: record.value })) {
    fail(step, 'record matches the model', { id, stored, record });
  }
}

/** Identities to observe after a command: those it may change and their twins under the other tenant. */
function observedIds(changed: readonly number[]): number[] {
  return [...new Set(changed.flatMap((id) => [id, twinOf(id)]))];
}

export { checkAgainstModel, fail, InvariantOracle, InvariantViolation, type Observation, observedIds };
