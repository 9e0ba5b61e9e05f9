import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import { ConfigurationError, OwnershipLostError, PayloadConflictError, UnexpectedItemError } from '../errors.js';
import { formatIdentity, type ValidIdentity } from '../identity.js';
import type { StepName } from '../rules.js';
import { WorkState } from '../states.js';
import { ApprovalRecords } from './approvals/approval-records.js';
import { sendConditional } from './driver/conditional-write.js';
import type { StoreConnection } from './driver/connection.js';
import { sendGet, sendTransactWrite, type TableClient } from './driver/plain-requests.js';
import type { FlowControlStore } from './flow-control/flow-control-store.js';
import * as flowControlStore from './flow-control/flow-control-store.js';
import type { PayloadStore } from './payloads/payloads.js';
import { type QuarantineInput, type QuarantineRecord, recordQuarantine } from './records/quarantine.js';
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
import { type Claim, claimFromItem, isWorkItem, type StepRecord, type WorkItem } from './work-items/work-item.js';

/** Why a worker bundled without flow control refuses concurrency limits. */
const FLOW_CONTROL_OMITTED =
  "this worker was bundled without flow control, so it cannot enforce concurrency limits: set the construct's flowControl prop";

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

/** What the worker reaches of approvals: the records (approval-records.ts), never a decision. */
interface WorkerApprovals {
  readonly records: ApprovalRecords;
}

/** A retryable failure: the job goes back to queued after `retryDelayMs`, unless attempts are exhausted. */
interface RetryableFailure extends FailureReport {
  retryDelayMs: number;
}

/**
 * Flow control's store facet, used by the first job with limits: a deployment without limits never runs it, and a bundle
 * built without flow control (FLOW_CONTROL_CONSTANT `'omitted'`: every function but a worker with `flowControl`)
 * does not hold it.
 */
const loadFlowControl =
  process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' ? undefined : () => Promise.resolve(flowControlStore);

/**
 * The work-item store, the one door to the jobs table (River's driver): nobody outside lib/store/ holds its
 * client, table name or clock. Every transition is exactly one conditional write. Its methods take parsed types
 * (ValidIdentity, NewWorkItem, LeaseRequest, ValidOutcome, StepName: see schemas.ts), checked once where they
 * entered the library, so nothing here validates again. Holder transitions carry the
 * claim's fence in their condition; a failed condition is `OwnershipLostError` unless the item shows the
 * same transition already applied under my fence (a lost response retried by the SDK), which is success.
 * This core is what the worker runs (holder transitions, claim, enqueue, get, quarantine, successors, fence epochs,
 * unrunnable notes, approval records): the facets of the sweeper, the admin API and the tools live on OperatorStore
 * (operator/operator-store.ts), which extends it, so the worker's bundle holds none of them.
 */
class WorkItemStore {
  protected readonly client: TableClient;
  protected readonly table: TableContext;
  protected readonly clock: Clock;
  /** The connection the facets read and write through (the same client, table and clock). */
  protected readonly db: StoreConnection;
  /** Whether the engine has TransactWriteItems, once a successor completion found out. */
  private transactions: 'unknown' | 'missing' = 'unknown';
  /** The deployment's fence epoch: new rows start in it; raise-fences raises it after a restore. */
  readonly epochs: FenceEpochs;
  /** Rows no deployed worker can run: refusals noted on the row, parked quarantined past the ceiling (worker). */
  readonly unrunnable: UnrunnableRows;
  /** The approval records a gated job's run opens and checks (worker); OperatorStore adds the decisions (admin). */
  readonly approvals: WorkerApprovals;
  private flowStore: FlowControlStore | undefined;

  constructor(options: WorkItemStoreOptions) {
    this.client = options.client;
    this.clock = options.clock ?? systemClock;
    this.table = { tableName: options.tableName, deadlineShards: options.deadlineShards ?? DEFAULT_DEADLINE_SHARDS };
    this.db = { client: this.client, table: this.table, clock: this.clock };
    this.epochs = new FenceEpochs(this.db, options.fenceEpochCacheMs ?? DEFAULT_FENCE_EPOCH_CACHE_MS);
    this.unrunnable = new UnrunnableRows(this.db);
    this.approvals = { records: new ApprovalRecords(this.db) };
  }

  /**
   * Flow control (flow-control/flow-control-store.ts: concurrency slots, provider budgets, the waits for them),
   * imported and built on first use: a deployment without limits never loads it. ConfigurationError in a bundle
   * built without flow control (the construct's `flowControl` prop).
   */
  async flow(): Promise<FlowControlStore> {
    // The constant's test, spelled out so esbuild folds it here: without flow control the method is this throw.
    if (process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' || !loadFlowControl) {
      throw new ConfigurationError(FLOW_CONTROL_OMITTED);
    } else {
      const { FlowControlStore } = await loadFlowControl();
      this.flowStore ??= new FlowControlStore(this.db, (claim, transition) => this.applyFenced(claim, transition));
      return this.flowStore;
    }
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
      db: this.db,
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
  FLOW_CONTROL_OMITTED,
  type NotClaimableReason,
  type RetryableFailure,
  type WorkerApprovals,
  WorkItemStore,
  type WorkItemStoreOptions,
};
