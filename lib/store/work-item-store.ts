import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import {
  IllegalTransitionError,
  ItemNotFoundError,
  OwnershipLostError,
  PayloadConflictError,
  UnexpectedItemError,
} from '../errors.js';
import { formatIdentity, type ValidIdentity } from '../identity.js';
import type { StepName } from '../rules.js';
import { WorkState } from '../states.js';
import { Approvals } from './approvals/approvals.js';
import { Deadlines } from './deadlines/deadlines.js';
import { sendConditional } from './driver/conditional-write.js';
import type { StoreConnection } from './driver/connection.js';
import { sendGet, sendTransactWrite, type TableClient } from './driver/plain-requests.js';
import { Maintenance } from './maintenance/maintenance.js';
import { buildOperatorUpdate, type OperatorTransition, operatorFence } from './operator/operator-requests.js';
import { cancelTransition, type OperatorAction } from './operator/operator-transitions.js';
import { CANCELLABLE_STATES, operatorApplied } from './operator/read-back.js';
import { commitCancelWithStamps, stampEach } from './operator/stamped-cancel.js';
import { ParkedReads } from './parked/parked-reads.js';
import { TenantPartitions } from './parked/tenant-partitions.js';
import type { PayloadStore } from './payloads/payloads.js';
import { AuditLog } from './records/audit.js';
import { type QuarantineInput, type QuarantineRecord, recordQuarantine } from './records/quarantine.js';
import { PayloadReview } from './review/payload-review.js';
import { ShadowClaims } from './shadow/shadow-claims.js';
import type { NewSuccessor } from './successors/successor-requests.js';
import {
  completeAsDurableStep,
  completeInTransaction,
  type SuccessorCommit,
  type SuccessorWriterPort,
} from './successors/successors.js';
import { DEFAULT_DEADLINE_SHARDS, workItemKey } from './table.js';
import { UnrunnableRows } from './unrunnable/unrunnable.js';
import { openAttempt } from './work-items/attempt-history.js';
import { DEFAULT_FENCE_EPOCH_CACHE_MS, epochFloor, FenceEpochs } from './work-items/fence-epoch.js';
import {
  buildClaimRequest,
  buildCreateRequest,
  buildFencedTransaction,
  buildFencedUpdate,
  claimability,
  type FencedTransactionParts,
  type HolderTransition,
  type NotClaimableReason,
  type TableContext,
  type TransactItem,
} from './work-items/requests.js';
import type { LeaseDuration, LeaseRequest, NewWorkItem } from './work-items/schemas.js';
import {
  awaitPayloadTransition,
  completeTransition,
  type FailureReport,
  failTerminalTransition,
  heartbeatTransition,
  parkTransition,
  retryLaterTransition,
  stepTransition,
  type ValidOutcome,
} from './work-items/transitions.js';
import {
  type Claim,
  claimFromItem,
  identityOfItem,
  isWorkItem,
  type StepRecord,
  type WorkItem,
} from './work-items/work-item.js';

/** How to reach the jobs table. */
interface WorkItemStoreOptions {
  client: TableClient;
  tableName: string;
  clock?: Clock;
  deadlineShards?: number;
  /** How long the fence epoch read for new rows is trusted (default 5 s); raise-fences waits this long. */
  fenceEpochCacheMs?: number;
}

/** Enqueue result: a new item (claimed when asked), or a replay of the same identity and payload hash. */
type EnqueueResult = { outcome: 'created'; item: WorkItem; claim?: Claim } | { outcome: 'replay'; item: WorkItem };

/** Claim result: the claim, or the reason with the item as read back. */
type ClaimResult = { claimed: true; claim: Claim } | { claimed: false; reason: NotClaimableReason; item?: WorkItem };

/** A retryable failure: the job goes back to queued after `retryDelayMs`, unless attempts are exhausted. */
interface RetryableFailure extends FailureReport {
  retryDelayMs: number;
}

/**
 * The work-item store, the one door to the jobs table (River's driver): nobody outside lib/store/ holds its
 * client, table name or clock. Every transition is exactly one conditional write. Its methods take parsed types
 * (ValidIdentity, NewWorkItem, LeaseRequest, ValidOutcome, StepName: see schemas.ts), checked once where they
 * entered the library, so nothing here validates again. Holder transitions carry the
 * claim's fence in their condition; a failed condition is `OwnershipLostError` unless the item shows the
 * same transition already applied under my fence (a lost response retried by the SDK), which is success.
 * The reads and writes of the sweeper, the admin API and the tools are grouped by what they read:
 * `deadlines`, `parked`, `tenants`, `audit`, `maintenance`, `shadow`, `approvals`, `unrunnable`.
 */
class WorkItemStore {
  private readonly client: TableClient;
  private readonly table: TableContext;
  private readonly clock: Clock;
  /** Whether the engine has TransactWriteItems, once a successor completion found out. */
  private transactions: 'unknown' | 'missing' = 'unknown';
  /** The deadline index: due pages, active listings and counts, deadline moves (sweeper, admin). */
  readonly deadlines: Deadlines;
  /** The parked indexes: oldest parked time, counts, listing pages (sweeper, admin). */
  readonly parked: ParkedReads;
  /** One tenant's partition keys: listing pages and a tally by state (admin). */
  readonly tenants: TenantPartitions;
  /** Audit records of admin actions that concern no single item. */
  readonly audit: AuditLog;
  /** Sweeper cursor, fence scan, payload erasure, health probe. */
  readonly maintenance: Maintenance;
  /** The deployment's fence epoch: new rows start in it; raise-fences raises it after a restore. */
  readonly epochs: FenceEpochs;
  /** Shadow mode: what an existing consumer ran, one row per identity beside its work item (never the work item). */
  readonly shadow: ShadowClaims;
  /** Approve and reject a job awaiting approval, each one conditional write without a read (admin). */
  readonly approvals: Approvals;
  /** Rows no deployed worker can run: refusals noted on the row, parked quarantined past the ceiling (worker). */
  readonly unrunnable: UnrunnableRows;
  /** An approver's read of the payload body a job awaiting approval binds (admin). */
  readonly review: PayloadReview;

  constructor(options: WorkItemStoreOptions) {
    this.client = options.client;
    this.clock = options.clock ?? systemClock;
    this.table = { tableName: options.tableName, deadlineShards: options.deadlineShards ?? DEFAULT_DEADLINE_SHARDS };
    const db: StoreConnection = { client: this.client, table: this.table, clock: this.clock };
    this.deadlines = new Deadlines(db);
    this.parked = new ParkedReads(db);
    this.tenants = new TenantPartitions(db);
    this.audit = new AuditLog(db);
    this.maintenance = new Maintenance(db);
    this.epochs = new FenceEpochs(db, options.fenceEpochCacheMs ?? DEFAULT_FENCE_EPOCH_CACHE_MS);
    this.shadow = new ShadowClaims(db);
    this.approvals = new Approvals(db);
    this.unrunnable = new UnrunnableRows(db);
    this.review = new PayloadReview(db);
  }

  /** The time on the store's clock, the one every write stamps and every lease is measured on. */
  now(): number {
    return this.clock.now();
  }

  /**
   * Creates the item (queued, claimed when `lease` is given, awaiting_approval when the item carries a gate) with one conditional PutItem, its fence starting
   * at the current fence epoch's floor (so a row created after a raise is above every fence issued before).
   * Same identity + same hash ▶ replay, nothing written. Different hash ▶ PayloadConflictError, nothing written.
   * A create retried after a lost response finds its own write token (claim id) and is reported `created`.
   */
  async enqueue(valid: NewWorkItem, lease?: LeaseRequest): Promise<EnqueueResult> {
    // A gated job is created awaiting_approval, never claimed: the lease is not used.
    const initialClaim = lease && valid.approval === undefined ? { ...lease, claimId: randomUUID() } : undefined;
    const createToken = initialClaim ? undefined : randomUUID();
    const floor = epochFloor(await this.epochs.current());
    const request = buildCreateRequest(this.table, valid, this.clock.now(), initialClaim, createToken, floor);
    const outcome = await sendConditional(this.client, { kind: 'put', ...request });
    if (outcome.ok) {
      return {
        outcome: 'created',
        item: request.Item,
        ...(initialClaim ? { claim: claimFromItem(request.Item, valid.identity, false) } : {}),
      };
    }
    const existing = outcome.current;
    if (!isWorkItem(existing))
      throw new UnexpectedItemError(`key of ${formatIdentity(valid.identity)} holds a non-work record`, existing);
    // A lost PutItem response retried by the SDK: the item is ours, with our claim id.
    if (initialClaim && existing.claimId === initialClaim.claimId && existing.state === WorkState.claimed) {
      return { outcome: 'created', item: existing, claim: claimFromItem(existing, valid.identity, false) };
    }
    if (createToken !== undefined && existing.createToken === createToken)
      return { outcome: 'created', item: existing };
    if (existing.payloadHash !== valid.payloadHash) {
      throw new PayloadConflictError(
        `${formatIdentity(valid.identity)} already exists with a different payload hash; nothing was changed`,
        existing,
      );
    }
    return { outcome: 'replay', item: existing };
  }

  /**
   * The conditional Put that creates the item queued and due now (on the deadline index, so the sweeper wakes it),
   * its fence at the current epoch's floor, for a caller's own TransactWriteItems (the outbox): it fails, and with
   * it the whole transaction, when the identity exists. Reads the fence epoch; writes nothing.
   */
  async createQueuedRequest(valid: NewWorkItem): Promise<ReturnType<typeof buildCreateRequest>> {
    const floor = epochFloor(await this.epochs.current());
    const now = this.clock.now();
    return buildCreateRequest(this.table, { ...valid, availableAt: now }, now, undefined, undefined, floor);
  }

  /** Claims by identity: raises fence and attempts, sets the lease. Returns why not when not claimable. */
  async claim(identity: ValidIdentity, lease: LeaseRequest): Promise<ClaimResult> {
    const claimId = randomUUID();
    const now = this.clock.now();
    const request = buildClaimRequest(this.table, identity, { ...lease, claimId }, now);
    const outcome = await sendConditional(this.client, { kind: 'update', ...request });
    if (outcome.ok) {
      const old = outcome.attributes as unknown as WorkItem;
      const claimed: WorkItem = {
        ...old,
        state: WorkState.claimed,
        fence: old.fence + 1,
        attempts: old.attempts + 1,
        leaseOwner: lease.owner,
        claimId,
        leaseExpiresAt: now + lease.leaseMs,
        ah: [...(old.ah ?? []), openAttempt(lease.owner, now)],
      };
      return {
        claimed: true,
        claim: claimFromItem(claimed, identity, old.state === WorkState.claimed, old.effectMayHaveHappened === true),
      };
    }
    const current = outcome.current;
    if (!isWorkItem(current)) return { claimed: false, reason: 'missing' };
    if (current.state === WorkState.claimed && current.claimId === claimId) {
      // A lost response: what the item held before my claim is gone, so assume an effect may have happened.
      return { claimed: true, claim: claimFromItem(current, identity, false, true) };
    }
    const verdict = claimability(current, now, lease.jobVersion);
    // Read back after the refusal, the row may already pass (it changed since): not due for this claim.
    return { claimed: false, reason: verdict.claimable ? 'not_due' : verdict.reason, item: current };
  }

  /**
   * Extends the lease of my claim, only if the row still holds the lease this claim carries (the last one I
   * wrote) and it has not expired; returns the renewed claim. OwnershipLostError if superseded or lapsed.
   */
  async heartbeat(claim: Claim, leaseMs: LeaseDuration): Promise<Claim> {
    const now = this.clock.now();
    const leaseExpiresAt = now + leaseMs;
    await this.applyFenced(claim, heartbeatTransition(claim.leaseExpiresAt, leaseExpiresAt, now));
    return Object.freeze({ ...claim, leaseExpiresAt });
  }

  /** claimed ▶ succeeded under my fence. */
  async complete(claim: Claim, outcome: ValidOutcome): Promise<void> {
    await this.applyFenced(claim, completeTransition(outcome, this.clock.now()));
  }

  /**
   * claimed ▶ succeeded under my fence, enqueueing `successors` (queued, each once by identity): in the same
   * TransactWriteItems as the completion where the engine has transactions, else as a durable step before it
   * (completeAsDurableStep says what that promises). The rows created are returned for their wake-ups.
   * OwnershipLostError (superseded: no successor written by this call), PayloadConflictError (another job holds a
   * successor's identity: the completion is not written).
   */
  async completeWithSuccessors(
    claim: Claim,
    outcome: ValidOutcome,
    successors: readonly NewSuccessor[],
    payloads: PayloadStore,
  ): Promise<SuccessorCommit> {
    const port = this.successorPort();
    if (this.transactions !== 'missing') {
      const committed = await completeInTransaction(port, claim, outcome, successors, payloads);
      if (committed !== 'unsupported') return committed;
      // Remembered for this store: the engine's answer does not change while the process runs.
      this.transactions = 'missing';
    }
    return completeAsDurableStep(port, claim, outcome, successors, payloads);
  }

  /** claimed ▶ failed_terminal under my fence. */
  async failTerminal(claim: Claim, failure: FailureReport): Promise<void> {
    await this.applyFenced(claim, failTerminalTransition(claim, failure, this.clock.now()));
  }

  /**
   * claimed ▶ queued after a backoff, or ▶ failed_terminal when this was the last attempt (a confirmed
   * failure is never parked as unknown). Returns the state the item moved to.
   */
  async failRetryable(claim: Claim, failure: RetryableFailure): Promise<WorkState> {
    const now = this.clock.now();
    if (claim.attempt >= claim.maxAttempts) {
      const message = `attempts exhausted (${claim.attempt}/${claim.maxAttempts}); last error: ${failure.errorCode}`;
      await this.applyFenced(claim, failTerminalTransition(claim, { errorCode: 'attempts_exhausted', message }, now));
      return WorkState.failed_terminal;
    }
    await this.applyFenced(claim, retryLaterTransition(failure, now + failure.retryDelayMs, now));
    return WorkState.queued;
  }

  /**
   * claimed ▶ queued for `waitMs`, the attempt given back (awaitPayloadTransition): the row's inline body is not
   * stored yet. OwnershipLostError when superseded.
   */
  async awaitPayload(claim: Claim, failure: FailureReport, waitMs: number): Promise<void> {
    const now = this.clock.now();
    await this.applyFenced(claim, awaitPayloadTransition(claim, failure, now + waitMs, now));
  }

  /** claimed ▶ unknown: the outcome cannot be confirmed; never success, never a blind retry. */
  async parkUnknown(claim: Claim, failure: FailureReport): Promise<void> {
    await this.applyFenced(claim, parkTransition(claim, WorkState.unknown, failure, this.clock.now()));
  }

  /** claimed ▶ quarantined: the payload cannot be interpreted (schema, version, hash mismatch). */
  async quarantine(claim: Claim, failure: FailureReport): Promise<void> {
    await this.applyFenced(claim, parkTransition(claim, WorkState.quarantined, failure, this.clock.now()));
  }

  /** Records durable step `stepName` as done under my fence, with its small result; returns the record written. */
  async recordStep(claim: Claim, stepName: StepName, result: unknown): Promise<StepRecord> {
    const at = this.clock.now();
    await this.applyFenced(claim, stepTransition(stepName, result, claim, at));
    return { fence: claim.fence, at, result };
  }

  /**
   * awaiting_approval | queued | claimed | unknown ▶ cancelled with fence + 1, audited. The running holder's next work-item write is
   * rejected. With `stampsFor` (lib/fenced's cancelStamps) the records the row names as owned are stamped with the
   * new fence: in the same transaction where the engine has transactions, else right after the cancel committed.
   */
  async cancel(
    identity: ValidIdentity,
    action: OperatorAction,
    stampsFor?: (item: WorkItem, fence: number) => readonly TransactItem[],
  ): Promise<WorkItem> {
    const item = await this.observe(identity, CANCELLABLE_STATES);
    const now = this.clock.now();
    const transition = cancelTransition(item, action, now);
    const stamps = stampsFor?.(item, operatorFence(transition)) ?? [];
    if (stamps.length === 0) return this.settle(identity, await this.applyOperator(item, transition));
    const request = buildOperatorUpdate(this.table, identity, transition, now);
    const together = await commitCancelWithStamps(this.client, request, stamps);
    if (together === 'committed') return (await this.get(identity)) ?? item;
    if (together === 'work_item_refused')
      return this.settle(identity, { ok: false, current: await this.get(identity) });
    const cancelled = this.settle(identity, await this.applyOperator(item, transition));
    await stampEach(this.client, stamps);
    return cancelled;
  }

  /**
   * Reads the item, checks the transition is allowed from its state, then applies it conditional on the
   * state and fence it read (compare-and-swap inside the write). ItemNotFoundError if missing,
   * IllegalTransitionError if the state does not allow it or the item changed in between.
   */
  async operate(
    identity: ValidIdentity,
    allowedFrom: readonly WorkState[],
    makeTransition: (item: WorkItem) => OperatorTransition,
  ): Promise<WorkItem> {
    const item = await this.observe(identity, allowedFrom);
    return this.settle(identity, await this.applyOperator(item, makeTransition(item)));
  }

  /** The item an operator transition starts from: ItemNotFoundError, or IllegalTransitionError from another state. */
  private async observe(identity: ValidIdentity, allowedFrom: readonly WorkState[]): Promise<WorkItem> {
    const item = await this.get(identity);
    if (!item) throw new ItemNotFoundError(`no work item ${formatIdentity(identity)}`, { ...identity });
    if (!allowedFrom.includes(item.state)) {
      throw new IllegalTransitionError(
        `${formatIdentity(identity)} is ${item.state}; allowed only from ${allowedFrom.join(', ')}`,
        item,
      );
    }
    return item;
  }

  /** The committed item, or IllegalTransitionError when the item changed while the operation ran. */
  private settle(
    identity: ValidIdentity,
    outcome: { ok: true; item: WorkItem } | { ok: false; current: WorkItem | undefined },
  ): WorkItem {
    if (outcome.ok) return outcome.item;
    throw new IllegalTransitionError(
      `${formatIdentity(identity)} changed while the operation ran (now ${String(outcome.current?.state)}); read it again`,
      outcome.current,
    );
  }

  /** Applies an operator transition to an item already observed (e.g. from an index); never throws on a lost race. */
  async applyOperator(
    observed: Pick<WorkItem, 'tenantId' | 'operationId'>,
    transition: OperatorTransition,
  ): Promise<{ ok: true; item: WorkItem } | { ok: false; current: WorkItem | undefined }> {
    const now = this.clock.now();
    const request = buildOperatorUpdate(this.table, identityOfItem(observed), transition, now);
    const outcome = await sendConditional(this.client, { kind: 'update', ...request });
    if (outcome.ok) return { ok: true, item: outcome.attributes as unknown as WorkItem };
    const current = isWorkItem(outcome.current) ? outcome.current : undefined;
    // A lost response retried by the SDK: the item shows this very write (target state, fence + 1, my timestamp).
    if (current && operatorApplied(current, transition, now)) return { ok: true, item: current };
    return { ok: false, current };
  }

  /** Reads one work item (strongly consistent by default). */
  async get(identity: ValidIdentity, options: { consistent?: boolean } = {}): Promise<WorkItem | undefined> {
    const output = await sendGet(this.client, {
      TableName: this.table.tableName,
      Key: workItemKey(identity),
      ConsistentRead: options.consistent ?? true,
    });
    return isWorkItem(output.Item) ? output.Item : undefined;
  }

  /**
   * Commits one TransactWriteItems of my work item (item 0, under buildFencedUpdate's fence condition) and the
   * caller's own items. Errors propagate unchanged: the caller reads the cancellation (index 0 is the work item).
   */
  async commitFencedTransaction(claim: Claim, parts: FencedTransactionParts): Promise<void> {
    await sendTransactWrite(this.client, buildFencedTransaction(this.table, claim, parts));
  }

  /** Where an identity's work item is: a fenced transaction's business writes may not touch it too. */
  workItemLocation(identity: ValidIdentity): { tableName: string; key: { pk: string; sk: string } } {
    return { tableName: this.table.tableName, key: workItemKey(identity) };
  }

  /** Records a message that could not be interpreted (see recordQuarantine); touches no work item. */
  recordQuarantine(input: QuarantineInput): Promise<QuarantineRecord> {
    return recordQuarantine(this.client, this.table.tableName, this.clock, input);
  }

  private successorPort(): SuccessorWriterPort {
    return {
      db: { client: this.client, table: this.table, clock: this.clock },
      applyFenced: (claim, transition) => this.applyFenced(claim, transition),
      enqueue: (item) => this.enqueue(item),
      recordStep: (claim, stepName, result) => this.recordStep(claim, stepName, result),
    };
  }

  /** The single path of every holder write: the fence condition is added by buildFencedUpdate. */
  private async applyFenced(claim: Claim, transition: HolderTransition): Promise<void> {
    const request = buildFencedUpdate(this.table, claim, transition);
    const outcome = await sendConditional(this.client, { kind: 'update', ...request });
    if (outcome.ok) return;
    const current = outcome.current;
    if (isWorkItem(current) && transition.appliedIn(current, claim)) return;
    throw new OwnershipLostError(
      `${transition.name} rejected: fence ${claim.fence} no longer holds ${formatIdentity(claim.identity)}`,
      current,
      { transition: transition.name, fence: claim.fence, currentFence: current?.fence, currentState: current?.state },
    );
  }
}

export {
  type ClaimResult,
  type EnqueueResult,
  type NotClaimableReason,
  type RetryableFailure,
  WorkItemStore,
  type WorkItemStoreOptions,
};
