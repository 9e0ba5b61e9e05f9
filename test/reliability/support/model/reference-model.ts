import { isDeepStrictEqual } from 'node:util';
import type { WorkState } from '../../../../lib/states.js';
import { APPROVAL_WAIT_MS, type ApprovalCommand, type GateKind } from './approval-commands.js';
import {
  approveModel,
  type DecisionResult,
  expireModel,
  gateOf,
  racingApproval,
  rejectModel,
  rivalCommand,
} from './approval-model.js';
import {
  type Command,
  type HolderCommand,
  IDENTITY_COUNT,
  maxAttemptsOf,
  targetClassOf,
  Universe,
} from './commands.js';

/** What a command did, in terms both the model and the real system can state. */
type Outcome =
  | { kind: 'time' }
  | { kind: 'enqueue'; result: 'created' | 'replay' | 'conflict'; fence?: number }
  | { kind: 'claim'; claimed: true; fence: number; takeover: boolean }
  | { kind: 'claim'; claimed: false; reason: string }
  | { kind: 'holder'; ok: true; state: WorkState }
  | { kind: 'holder'; ok: false }
  | { kind: 'write'; ok: true }
  | { kind: 'write'; ok: false; reason: string }
  | { kind: 'operator'; result: DecisionResult | 'illegal' | 'statement_required' }
  | { kind: 'sweep'; unknown: number; expired: number }
  /** An approval and its rival sent together: what each call reported. */
  | { kind: 'race'; approve: Outcome; rival: Outcome };

/** The work item as the model expects it. */
interface ModelItem {
  state: WorkState;
  fence: number;
  attempts: number;
  maxAttempts: number;
  hash: 'main' | 'other';
  leaseExpiresAt?: number;
  availableAt?: number;
  /** Set by every claim (an effect may have happened); cleared only by an operator's statement. */
  effect: boolean;
  /** Recorded by the claim with the mark. */
  targetClass?: 'B' | 'C' | 'D';
  /** awaiting_approval: when the sweeper cancels it, and who may approve. */
  approvalExpiresAt?: number;
  approvers?: 'anyone' | 'not-producer';
}

/** The protected record of an identity as the model expects it. */
interface ModelRecord {
  epoch?: number;
  seq?: number;
  value?: string;
}

/** A claim a worker holds (possibly stale): what the worker believes. */
interface ModelClaim {
  fence: number;
  attempt: number;
  leaseExpiresAt: number;
  seq: number;
  superseded: boolean;
  /** Lease doubt of this claim: set once the worker's clock reaches its lease deadline; never cleared. */
  doubt: boolean;
}

const FINISHED: readonly string[] = ['succeeded', 'failed_terminal', 'unknown', 'quarantined', 'cancelled'];
const SKEW_MAX = Math.max(...Universe.skews.map(Math.abs));

/**
 * The reference model: the design's state machine written from DESIGN.md, with no code shared with lib/.
 * `apply` predicts the outcome of a command and moves the model to the state the real system must be in.
 */
class ReferenceModel {
  readonly items: Array<ModelItem | undefined> = Array.from({ length: IDENTITY_COUNT }, () => undefined);
  readonly records: ModelRecord[] = Array.from({ length: IDENTITY_COUNT }, () => ({}));
  private readonly held = new Map<string, ModelClaim>();

  constructor(
    public now: number,
    private readonly skews: readonly number[],
  ) {}

  /** Predicts `command` and applies it to the model. */
  apply(command: Command): Outcome {
    switch (command.kind) {
      case 'advance':
        this.now += command.ms;
        return { kind: 'time' };
      case 'pause':
        this.now += this.pauseDelta(command.worker);
        return { kind: 'time' };
      case 'enqueue':
        return this.enqueue(command.id, command.worker, command.conflict, command.gate);
      case 'claim':
        return this.claim(command.id, command.worker);
      case 'sweep':
        return this.sweep();
      case 'cancel':
        return this.operate(command.id, ['awaiting_approval', 'queued', 'claimed', 'unknown'], (item) => ({
          ...item,
          state: 'cancelled',
        }));
      case 'approve':
        return { kind: 'operator', result: approveModel(this.items[command.id], command, this.now) };
      case 'reject':
        return { kind: 'operator', result: rejectModel(this.items[command.id]) };
      case 'race':
        throw new Error('a race is settled from what the engine reported: call settleRace');
      case 'resolve':
        if (command.to === 'queued') return this.requeue(command.id, ['unknown'], command.statement);
        return this.operate(command.id, ['unknown'], (item) => ({ ...item, state: command.to }));
      case 'retry':
        return this.requeue(command.id, ['failed_terminal', 'unknown', 'quarantined'], command.statement);
      default:
        return this.holder(command);
    }
  }

  /** How far a pause of `worker` moves the clock: until every lease it holds has expired for every clock. */
  pauseDelta(worker: number): number {
    const leases = [...this.held.entries()]
      .filter(([key]) => key.startsWith(`${worker}:`))
      .map(([, claim]) => claim.leaseExpiresAt);
    if (leases.length === 0) return 1;
    return Math.max(1, Math.max(...leases) + SKEW_MAX + 1 - this.now);
  }

  private workerNow(worker: number): number {
    return this.now + (this.skews[worker] ?? 0);
  }

  /**
   * An approval racing a cancel, a reject or the expiry (the clock first moves past it), settled by what the engine
   * reported: exactly one serial order (or, for a cancel, its read before the approval committed: refused, nothing
   * changed) must give those outcomes; the model moves to it. None ▶ the first order, which the caller then rejects.
   */
  settleRace(command: Extract<ApprovalCommand, { kind: 'race' }>, actual: Outcome): Outcome {
    if (command.rival === 'expire') this.now += APPROVAL_WAIT_MS + 1;
    const approve = racingApproval(command.id);
    const rival = rivalCommand(command.id, command.rival);
    const orders: Array<(model: ReferenceModel) => Outcome> = [
      (model) => ({ kind: 'race', approve: model.apply(approve), rival: model.apply(rival) }),
      (model) => {
        const rivalOutcome = model.apply(rival);
        return { kind: 'race', approve: model.apply(approve), rival: rivalOutcome };
      },
    ];
    if (command.rival === 'cancel') {
      orders.push((model) => ({
        kind: 'race',
        approve: model.apply(approve),
        rival: { kind: 'operator', result: 'illegal' },
      }));
    }
    const tried = orders.map((order) => {
      const fork = this.fork();
      return { fork, outcome: order(fork) };
    });
    const match = tried.find((candidate) => isDeepStrictEqual(candidate.outcome, actual)) ?? tried[0];
    if (!match) throw new Error('no order to try');
    this.adopt(match.fork);
    return match.outcome;
  }

  /** A copy of the model to try one order of a race on. */
  private fork(): ReferenceModel {
    const copy = new ReferenceModel(this.now, this.skews);
    copy.adopt(this);
    return copy;
  }

  /** Takes over `other`'s state (deep copies: the two never share an item or a claim). */
  private adopt(other: ReferenceModel): void {
    this.now = other.now;
    this.items.splice(0, this.items.length, ...structuredClone(other.items));
    this.records.splice(0, this.records.length, ...structuredClone(other.records));
    this.held.clear();
    for (const [key, claim] of other.held) this.held.set(key, { ...claim });
  }

  private enqueue(id: number, worker: number | null, conflict: boolean, gateKind: GateKind): Outcome {
    const hash = conflict ? 'other' : 'main';
    const existing = this.items[id];
    if (existing) return { kind: 'enqueue', result: existing.hash === hash ? 'replay' : 'conflict' };
    const maxAttempts = maxAttemptsOf(id);
    const gate = gateOf(gateKind, this.now);
    if (gate) {
      // Created awaiting_approval whoever enqueues it: no claim, no attempt, no lease (a worker's lease is not used).
      this.items[id] = { state: 'awaiting_approval', fence: 0, attempts: 0, maxAttempts, hash, effect: false, ...gate };
      return { kind: 'enqueue', result: 'created' };
    }
    if (worker === null) {
      this.items[id] = {
        state: 'queued',
        fence: 0,
        attempts: 0,
        maxAttempts,
        hash,
        availableAt: this.now,
        effect: false,
      };
      return { kind: 'enqueue', result: 'created' };
    }
    const leaseExpiresAt = this.workerNow(worker) + Universe.leaseMs;
    const mark = { effect: true, targetClass: targetClassOf(id) };
    this.items[id] = { state: 'claimed', fence: 1, attempts: 1, maxAttempts, hash, leaseExpiresAt, ...mark };
    this.held.set(`${worker}:${id}`, { fence: 1, attempt: 1, leaseExpiresAt, seq: 0, superseded: false, doubt: false });
    return { kind: 'enqueue', result: 'created', fence: 1 };
  }

  private claim(id: number, worker: number): Outcome {
    const item = this.items[id];
    const now = this.workerNow(worker);
    if (!item) return { kind: 'claim', claimed: false, reason: 'missing' };
    const due = item.state === 'queued' && (item.availableAt ?? 0) <= now;
    const expired = item.state === 'claimed' && (item.leaseExpiresAt ?? 0) < now;
    if (item.attempts < item.maxAttempts && (due || expired)) {
      const leaseExpiresAt = now + Universe.leaseMs;
      const fence = item.fence + 1;
      const mark = { effect: true, targetClass: targetClassOf(id) };
      this.items[id] = { ...item, state: 'claimed', fence, attempts: item.attempts + 1, leaseExpiresAt, ...mark };
      delete this.items[id]?.availableAt;
      this.held.set(`${worker}:${id}`, {
        fence,
        attempt: item.attempts + 1,
        leaseExpiresAt,
        seq: 0,
        superseded: false,
        doubt: false,
      });
      return { kind: 'claim', claimed: true, fence, takeover: item.state === 'claimed' };
    }
    const reason = FINISHED.includes(item.state)
      ? 'finished'
      : item.state === 'awaiting_approval'
        ? 'awaiting_approval'
        : item.state === 'claimed' && (item.leaseExpiresAt ?? 0) >= now
          ? 'leased'
          : item.attempts >= item.maxAttempts
            ? 'exhausted'
            : 'not_due';
    return { kind: 'claim', claimed: false, reason };
  }

  /** Heartbeat, fenced write, complete, fail: on the worker's claim, or a claim when it holds none. */
  private holder(command: HolderCommand): Outcome {
    const claim = this.held.get(`${command.worker}:${command.id}`);
    if (!claim) return this.claim(command.id, command.worker);
    if (command.kind === 'write') return this.write(command.id, command.worker, claim, command.mode);
    if (command.kind === 'guardedWrite') {
      // The guard runs first: at or past the local lease deadline the write is refused and never sent.
      if (this.workerNow(command.worker) >= claim.leaseExpiresAt) claim.doubt = true;
      if (claim.doubt) return { kind: 'write', ok: false, reason: 'lease_in_doubt' };
      return this.write(command.id, command.worker, claim, 'next');
    }
    const item = this.items[command.id];
    const target = this.targetState(command, claim, item);
    // A holder write that finds its own transition already there (same state, my fence) is reported as applied.
    if (item && target !== 'claimed' && item.state === target && item.fence === claim.fence) {
      return { kind: 'holder', ok: true, state: target };
    }
    if (item?.state !== 'claimed' || item.fence !== claim.fence) return { kind: 'holder', ok: false };
    const now = this.workerNow(command.worker);
    if (command.kind === 'heartbeat') {
      // Refused by condition once the lease has expired, even when nobody took over.
      if ((item.leaseExpiresAt ?? 0) <= now) return { kind: 'holder', ok: false };
      claim.leaseExpiresAt = now + Universe.leaseMs;
      item.leaseExpiresAt = claim.leaseExpiresAt;
      return { kind: 'holder', ok: true, state: 'claimed' };
    }
    delete item.leaseExpiresAt;
    item.state = target;
    if (target === 'queued' && command.kind === 'fail') item.availableAt = now + command.delayMs;
    return { kind: 'holder', ok: true, state: item.state };
  }

  /** The state a holder command moves the item to. */
  private targetState(command: HolderCommand, claim: ModelClaim, item: ModelItem | undefined): WorkState {
    if (command.kind === 'heartbeat') return 'claimed';
    if (command.kind === 'complete') return 'succeeded';
    const retry = command.kind === 'fail' && !command.terminal && claim.attempt < (item?.maxAttempts ?? 0);
    return retry ? 'queued' : 'failed_terminal';
  }

  private write(id: number, worker: number, claim: ModelClaim, mode: 'advance' | 'next' | 'repeat'): Outcome {
    const record = this.records[id] as ModelRecord;
    if (claim.superseded) return { kind: 'write', ok: false, reason: 'newer_claim' };
    const epoch = record.epoch;
    if (epoch !== undefined && epoch > claim.fence) {
      claim.superseded = true;
      return { kind: 'write', ok: false, reason: 'newer_claim' };
    }
    const seq = mode === 'advance' ? 0 : mode === 'next' ? claim.seq + 1 : Math.max(1, claim.seq);
    const newer = epoch === undefined || epoch < claim.fence;
    if (mode === 'advance' && !newer) return { kind: 'write', ok: false, reason: 'same_claim_already_wrote' };
    if (mode !== 'advance' && !newer && (record.seq ?? 0) >= seq) {
      return { kind: 'write', ok: false, reason: 'sequence_not_newer' };
    }
    this.records[id] = { epoch: claim.fence, seq, value: `${worker}:${claim.fence}:${seq}` };
    if (mode !== 'advance') claim.seq = seq;
    return { kind: 'write', ok: true };
  }

  private sweep(): Outcome {
    let unknown = 0;
    for (const item of this.items) {
      if (item?.state !== 'claimed' || (item.leaseExpiresAt ?? 0) >= this.now || item.attempts < item.maxAttempts)
        continue;
      item.state = 'unknown';
      item.fence += 1;
      delete item.leaseExpiresAt;
      unknown += 1;
    }
    return { kind: 'sweep', unknown, expired: expireModel(this.items, this.now) };
  }

  /**
   * retry / resolve ▶ queued: a fresh attempt budget, the effect mark kept unless the operator states the
   * effect did not happen; a class D item with the mark is refused without that statement, nothing changes.
   */
  private requeue(id: number, from: readonly string[], statement: boolean): Outcome {
    const item = this.items[id];
    if (item && from.includes(item.state) && item.effect && item.targetClass === 'D' && !statement) {
      return { kind: 'operator', result: 'statement_required' };
    }
    return this.operate(id, from, (current) => ({
      ...current,
      state: 'queued',
      attempts: 0,
      availableAt: this.now,
      effect: current.effect && !statement,
    }));
  }

  private operate(id: number, from: readonly string[], to: (item: ModelItem) => ModelItem): Outcome {
    const item = this.items[id];
    if (!item) return { kind: 'operator', result: 'not_found' };
    if (!from.includes(item.state)) return { kind: 'operator', result: 'illegal' };
    const next = to(item);
    delete next.leaseExpiresAt;
    this.items[id] = { ...next, fence: item.fence + 1 };
    return { kind: 'operator', result: 'ok' };
  }
}

export { type ModelItem, type ModelRecord, type Outcome, ReferenceModel };
