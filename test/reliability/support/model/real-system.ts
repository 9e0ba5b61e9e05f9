import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { approveItem, rejectItem } from '../../../../lib/admin/approve.js';
import { cancelItem } from '../../../../lib/admin/cancel.js';
import type { AdminDeps } from '../../../../lib/admin/deps.js';
import { resolveItem } from '../../../../lib/admin/resolve.js';
import { retryItem } from '../../../../lib/admin/retry.js';
import { ManualClock } from '../../../../lib/clock.js';
import {
  ApprovalRefusedError,
  FenceRejectedError,
  IllegalTransitionError,
  ItemNotFoundError,
  isLeasefenceError,
  LeaseInDoubtError,
  OperatorStatementRequiredError,
  OwnershipLostError,
  PayloadConflictError,
} from '../../../../lib/errors.js';
import { FencedRecords } from '../../../../lib/fenced/records.js';
import { payloadHash } from '../../../../lib/hashing.js';
import { parseIdentity } from '../../../../lib/identity.js';
import { OperatorStore } from '../../../../lib/store/operator/operator-store.js';
import { parseLease, parseLeaseDuration, parseNewWorkItem } from '../../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../../lib/store/work-items/transitions.js';
import type { Claim } from '../../../../lib/store/work-items/work-item.js';
import { sweep } from '../../../../lib/sweeper/sweeper.js';
import { silentTelemetry } from '../../../../lib/telemetry.js';
import { AttemptAbort } from '../../../../lib/worker/attempt-abort.js';
import { createLeaseGuard } from '../../../../lib/worker/lease-guard.js';
import { LeaseKeeper } from '../../../../lib/worker/lease-keeper.js';
import { APPROVAL_WAIT_MS, type ApprovalCommand, type GateKind, Principals } from './approval-commands.js';
import { racingApproval } from './approval-model.js';
import {
  type Command,
  type HolderCommand,
  identityOf,
  maxAttemptsOf,
  payloadOf,
  targetClassOf,
  Universe,
} from './commands.js';
import type { Outcome } from './reference-model.js';

/** Deadline shards of every store of a run (sweeps query each). */
const RUN_SHARDS = 1;
const SKEW_MAX = Math.max(...Universe.skews.map(Math.abs));

/** Tables and clients of one randomized run. */
interface RunTables {
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  queueUrl: string;
  jobsTable: string;
  recordsTable: string;
}

interface Held {
  claim: Claim;
  records: FencedRecords;
  seq: number;
  /** The runtime's lease guard for this claim (its keeper sees the claim as last renewed). */
  guard: () => void;
  inDoubt: boolean;
}

/** Key of the protected record of an identity in the run's records table. */
function recordRef(recordsTable: string, id: number) {
  const { tenantId, operationId } = identityOf(id);
  return { tableName: recordsTable, key: { pk: `rec#${tenantId}#${operationId}`, sk: 'r' } };
}

/**
 * The system under test for one run: a store per worker on its own skewed view of one ManualClock, an
 * operator store on the clock itself, the admin operations and the sweeper, all on the real engine.
 */
class RealSystem {
  readonly clock: ManualClock;
  readonly operator: OperatorStore;
  /** Fence of the claim the last holder command (write, heartbeat, complete, fail) used. */
  lastHolderFence = 0;
  /** The worker's clock and its claim's lease deadline at the last guarded write or heartbeat. */
  lastHolderClock: { now: number; deadline: number } | undefined;
  private readonly stores: OperatorStore[];
  private readonly held = new Map<string, Held>();
  private readonly admin: AdminDeps;
  /** Each decision has an actor of its own, so no later one is taken for a retry of an earlier one (same ms). */
  private decisions = 0;

  constructor(
    private readonly run: RunTables,
    start: number,
    skews: readonly number[],
  ) {
    this.clock = new ManualClock(start);
    const base = { client: run.client, tableName: run.jobsTable, deadlineShards: RUN_SHARDS };
    this.operator = new OperatorStore({ ...base, clock: this.clock });
    this.stores = skews.map((skew) => new OperatorStore({ ...base, clock: { now: () => this.clock.now() + skew } }));
    // No wait for the holder's run bound: the reference model has none (the statement's own test covers it), and a
    // worker's clock may run up to SKEW_MAX ahead of the operator's, so its claim time may be "later" than now.
    this.admin = {
      store: this.operator,
      sqs: run.sqs,
      queueUrl: run.queueUrl,
      payloadsTable: 'unused-payloads',
      workerMaxRunMs: -SKEW_MAX,
    };
  }

  /** Runs one command against the engine and reports what happened. */
  async apply(command: Command): Promise<Outcome> {
    switch (command.kind) {
      case 'advance':
        this.clock.advance(command.ms);
        return { kind: 'time' };
      case 'pause':
        this.clock.advance(this.pauseDelta(command.worker));
        return { kind: 'time' };
      case 'enqueue':
        return this.enqueue(command.id, command.worker, command.conflict, command.gate);
      case 'claim':
        return this.claim(command.id, command.worker);
      case 'sweep':
        return this.sweep();
      case 'approve':
      case 'reject':
        return this.decide(command);
      case 'race':
        return this.race(command);
      case 'cancel':
        return this.operate(() => cancelItem(this.admin, identityOf(command.id), { actor: 'model', reason: 'model' }));
      case 'resolve':
        return this.operate(() =>
          resolveItem(this.admin, identityOf(command.id), {
            to: command.to,
            actor: 'model',
            reason: 'model',
            ...(command.to === 'queued' && command.statement ? { effectDidNotHappen: true } : {}),
          }),
        );
      case 'retry':
        return this.operate(() =>
          retryItem(this.admin, identityOf(command.id), {
            actor: 'model',
            reason: 'model',
            ...(command.statement ? { effectDidNotHappen: true } : {}),
          }),
        );
      default:
        return this.holder(command);
    }
  }

  private async sweep(): Promise<Outcome> {
    const summary = await sweep({
      store: this.operator,
      sqs: this.run.sqs,
      queueUrl: this.run.queueUrl,
      clock: this.clock,
      dueGraceMs: 0,
      resignalIntervalMs: 1,
    });
    return { kind: 'sweep', unknown: summary.sweptToUnknown, expired: summary.approvalsExpired };
  }

  /** Approve (through the admin API's function, with the payload hash the approver saw) or reject. */
  private decide(command: Extract<ApprovalCommand, { kind: 'approve' | 'reject' }>): Promise<Outcome> {
    this.decisions += 1;
    const identity = identityOf(command.id);
    const action = { actor: `approver-${this.decisions}`, reason: 'model' };
    if (command.kind === 'reject') return this.operate(() => rejectItem(this.admin, identity, action));
    const caller =
      command.approver === 'none'
        ? {}
        : {
            caller: {
              accountId: '123456789012',
              userId: `${Principals[command.approver]}:model-session`,
              accessKeyId: 'ASIAMODEL0000000',
            },
          };
    const payloadHashSeen = payloadHash(payloadOf(command.id, command.conflict));
    return this.operate(() =>
      approveItem(this.admin, identity, { ...action, ...caller, payloadHash: payloadHashSeen }),
    );
  }

  /** An approval and its rival sent together (the expiry: once the clock passed it); each call's own outcome. */
  private async race(command: Extract<ApprovalCommand, { kind: 'race' }>): Promise<Outcome> {
    if (command.rival === 'expire') this.clock.advance(APPROVAL_WAIT_MS + 1);
    const rival = () => {
      if (command.rival === 'expire') return this.sweep();
      if (command.rival === 'reject') return this.decide({ kind: 'reject', id: command.id });
      return this.operate(() => cancelItem(this.admin, identityOf(command.id), { actor: 'model', reason: 'model' }));
    };
    const [approve, rivalOutcome] = await Promise.all([this.decide(racingApproval(command.id)), rival()]);
    return { kind: 'race', approve, rival: rivalOutcome };
  }

  private pauseDelta(worker: number): number {
    const leases = [...this.held.entries()]
      .filter(([key]) => key.startsWith(`${worker}:`))
      .map(([, held]) => held.claim.leaseExpiresAt);
    if (leases.length === 0) return 1;
    return Math.max(1, Math.max(...leases) + SKEW_MAX + 1 - this.clock.now());
  }

  /** The lease a worker asks for: the identity's target class goes with it (the claim records it with the mark). */
  private lease(worker: number, id: number) {
    return { owner: `w${worker}`, leaseMs: Universe.leaseMs, targetClass: targetClassOf(id) };
  }

  private hold(worker: number, id: number, claim: Claim): void {
    const records = new FencedRecords({ client: this.run.client, claim });
    this.held.set(`${worker}:${id}`, { claim, records, seq: 0, guard: this.leaseGuard(worker, claim), inDoubt: false });
  }

  /** The runtime's one lease guard over a keeper of this claim on the worker's own (skewed) clock; no timers. */
  private leaseGuard(worker: number, claim: Claim): () => void {
    const abort = new AttemptAbort();
    const keeper = new LeaseKeeper({
      store: this.stores[worker] as OperatorStore,
      claim,
      leaseMs: parseLeaseDuration(Universe.leaseMs),
      intervalMs: 0,
      telemetry: silentTelemetry,
      onOwnershipLost: () => {},
    });
    return createLeaseGuard({ keeper, abort });
  }

  private async enqueue(id: number, worker: number | null, conflict: boolean, gate: GateKind): Promise<Outcome> {
    const identity = identityOf(id);
    const approval =
      gate === 'none'
        ? {}
        : {
            approval: {
              expiresAt: this.clock.now() + APPROVAL_WAIT_MS,
              approvers: gate,
              producerId: Principals.producer,
            },
          };
    const input = parseNewWorkItem({
      identity,
      jobType: 'model-job',
      payloadHash: payloadHash(payloadOf(id, conflict)),
      payloadRef: `ref-${id}`,
      maxAttempts: maxAttemptsOf(id),
      ...approval,
    });
    // A gated row's approval record, as the worker opens it when it first sees the row (worker/approval-gate.ts).
    const opened = async (outcome: string | undefined) => {
      if (outcome !== 'created' || !input.approval) return;
      const { expiresAt, approvers, producerId } = input.approval;
      const opening = { payloadHash: input.payloadHash, expiresAt, approvers, ...(producerId ? { producerId } : {}) };
      await this.operator.approvals.records.open(input.identity, opening);
    };
    try {
      if (worker === null) {
        const result = await this.operator.enqueue(input);
        await opened(result.outcome);
        return { kind: 'enqueue', result: result.outcome };
      }
      const result = await this.stores[worker]?.enqueue(input, parseLease(this.lease(worker, id)));
      await opened(result?.outcome);
      if (result?.outcome === 'created' && result.claim) {
        this.hold(worker, id, result.claim);
        return { kind: 'enqueue', result: 'created', fence: result.claim.fence };
      }
      return { kind: 'enqueue', result: result?.outcome ?? 'replay' };
    } catch (error) {
      if (isLeasefenceError(error, PayloadConflictError)) return { kind: 'enqueue', result: 'conflict' };
      throw error;
    }
  }

  private async claim(id: number, worker: number): Promise<Outcome> {
    const store = this.stores[worker] as OperatorStore;
    const result = await store.claim(parseIdentity(identityOf(id)), parseLease(this.lease(worker, id)));
    if (!result.claimed) return { kind: 'claim', claimed: false, reason: result.reason };
    this.hold(worker, id, result.claim);
    return { kind: 'claim', claimed: true, fence: result.claim.fence, takeover: result.claim.takeover };
  }

  private async holder(command: HolderCommand): Promise<Outcome> {
    const held = this.held.get(`${command.worker}:${command.id}`);
    if (!held) return this.claim(command.id, command.worker);
    this.lastHolderFence = held.claim.fence;
    const store = this.stores[command.worker] as OperatorStore;
    if (command.kind === 'write') return this.write(command.id, command.worker, held, command.mode);
    if (command.kind === 'guardedWrite') {
      this.lastHolderClock = { now: store.now(), deadline: held.claim.leaseExpiresAt };
      try {
        held.guard();
      } catch (error) {
        if (!isLeasefenceError(error, LeaseInDoubtError)) throw error;
        held.inDoubt = true;
        return { kind: 'write', ok: false, reason: 'lease_in_doubt' };
      }
      return this.write(command.id, command.worker, held, 'next');
    }
    if (command.kind === 'heartbeat') this.lastHolderClock = { now: store.now(), deadline: held.claim.leaseExpiresAt };
    try {
      if (command.kind === 'heartbeat') {
        held.claim = await store.heartbeat(held.claim, parseLeaseDuration(Universe.leaseMs));
        // A confirmed renewal moves the local deadline; doubt, once entered, is final for the attempt.
        if (!held.inDoubt) held.guard = this.leaseGuard(command.worker, held.claim);
        return { kind: 'holder', ok: true, state: 'claimed' };
      }
      if (command.kind === 'complete') {
        await store.complete(held.claim, parseJobOutcome({ outcomeCode: 'done' }));
        return { kind: 'holder', ok: true, state: 'succeeded' };
      }
      if (command.terminal) {
        await store.failTerminal(held.claim, { errorCode: 'model_terminal' });
        return { kind: 'holder', ok: true, state: 'failed_terminal' };
      }
      const failure = { errorCode: 'model_retryable', retryDelayMs: command.delayMs };
      return { kind: 'holder', ok: true, state: await store.failRetryable(held.claim, failure) };
    } catch (error) {
      if (isLeasefenceError(error, OwnershipLostError)) return { kind: 'holder', ok: false };
      throw error;
    }
  }

  private async write(id: number, worker: number, held: Held, mode: 'advance' | 'next' | 'repeat'): Promise<Outcome> {
    const seq = mode === 'advance' ? 0 : mode === 'next' ? held.seq + 1 : Math.max(1, held.seq);
    const change = { set: { value: `${worker}:${held.claim.fence}:${seq}`, tenantId: identityOf(id).tenantId } };
    const ref = recordRef(this.run.recordsTable, id);
    try {
      if (mode === 'advance') await held.records.write(ref, change);
      else await held.records.writeInSequence(ref, seq, change);
      if (mode !== 'advance') held.seq = seq;
      return { kind: 'write', ok: true };
    } catch (error) {
      if (isLeasefenceError(error, FenceRejectedError))
        return { kind: 'write', ok: false, reason: String(error.reason) };
      throw error;
    }
  }

  private async operate(action: () => Promise<unknown>): Promise<Outcome> {
    try {
      await action();
      return { kind: 'operator', result: 'ok' };
    } catch (error) {
      if (isLeasefenceError(error, ItemNotFoundError)) return { kind: 'operator', result: 'not_found' };
      if (isLeasefenceError(error, IllegalTransitionError)) return { kind: 'operator', result: 'illegal' };
      if (isLeasefenceError(error, OperatorStatementRequiredError))
        return { kind: 'operator', result: 'statement_required' };
      if (isLeasefenceError(error, ApprovalRefusedError)) return { kind: 'operator', result: error.refusal };
      throw error;
    }
  }
}

export { RealSystem, RUN_SHARDS, type RunTables, recordRef };
