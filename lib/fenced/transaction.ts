import { setTimeout as sleep } from 'node:timers/promises';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  CapabilityMissingError,
  OwnershipLostError,
  RetryableJobError,
  TransactionCancelledError,
  TransactionTokenReusedError,
} from '../errors.js';
import { formatIdentity } from '../identity.js';
import { WorkState } from '../states.js';
import type { WorkItemStore } from '../store/index.js';
import {
  type Claim,
  isWorkItem,
  type JobOutcome,
  parseJobOutcome,
  type StepRecord,
  sendGet,
  type TableClient,
  type WorkItem,
} from '../store/index.js';
import { type JobTracer, SpanName, traced } from '../tracing/tracer.js';
import { interpretCancellation } from './cancellation.js';
import { unmetExpectations } from './conditions.js';
import { businessConditionError } from './record-outcome.js';
import { parseStep, StepLedger } from './steps.js';
import {
  buildCompletionTransaction,
  buildStepTransaction,
  parseSharedWrites,
  type SharedWrite,
  type TransactionPlan,
} from './transaction-requests.js';

/**
 * How a FencedTransactions helper is bound: the store (commits each transaction with my work item in it, reads
 * the item back, tells the time), the client of the caller's own record tables, and the running claim.
 */
interface FencedTransactionsOptions {
  store: Pick<WorkItemStore, 'commitFencedTransaction' | 'get' | 'now' | 'workItemLocation'>;
  /** Reads a business record back when a cancellation did not return it (the caller's tables, never the store's). */
  client: TableClient;
  claim: Claim;
  /** Called once, before the error is thrown, when the work item shows this claim superseded. */
  onOwnershipLost?: (error: OwnershipLostError) => void;
  /** Once aborted, no transaction is sent. */
  signal?: Pick<AbortSignal, 'throwIfAborted'>;
  /** Run before any step or completion starts (the runtime's lease-doubt guard); throws to refuse it. */
  guard?: () => void;
  /** With tracing on: a span per step, and one per transaction sent (a fenced write: its kind, never a key). */
  tracer?: JobTracer | undefined;
  /** Sends of one transaction when it is cancelled by a conflict or throttling (default 5). */
  maxAttempts?: number;
  /** The claim's done steps, shared with `ctx.step` (default: a ledger seeded from `claim.steps`). */
  steps?: StepLedger;
  /** Run before a completion is built; throws to refuse it (the runtime: successors are pending). */
  beforeComplete?: () => void;
}

/** A step's fate: committed now, found committed by my earlier send, or skipped because it was already done. */
type StepOutcome =
  | { readonly status: 'applied' | 'already_applied'; readonly result: unknown }
  | { readonly status: 'skipped'; readonly result: unknown; readonly record: StepRecord };

/** Business writes, or a function building them (called only when the step is not already done). */
type WritesInput = readonly SharedWrite[] | (() => readonly SharedWrite[] | Promise<readonly SharedWrite[]>);

type Committed = { kind: 'applied' } | { kind: 'already_applied' } | { kind: 'skipped'; record: StepRecord };

/**
 * Class A: fenced transactions on records shared by many operations. Each step is one TransactWriteItems:
 * the business writes plus an Update of MY work item carrying `fence = mine AND state = claimed` that records
 * the step as done, so a superseded worker commits nothing (even before the new holder writes) and a step
 * lands once across takeovers: a new holder skips steps recorded in `claim.steps`. Needs an engine with
 * transactions (CapabilityMissingError otherwise).
 * @example
 * const tx = new FencedTransactions({ store, client, claim, onOwnershipLost: (e) => abort.abort(e) });
 * await tx.runStep('reserve', [{ kind: 'update', tableName: 'inventory', key: { sku }, add: { count: -1 }, where: { count: { ge: 1 } } }]);
 * await tx.complete({ outcomeCode: 'reserved' }, []);
 */
class FencedTransactions {
  readonly claim: Claim;
  private readonly store: FencedTransactionsOptions['store'];
  private readonly steps: StepLedger;
  private readonly maxAttempts: number;
  private lost: OwnershipLostError | undefined;

  constructor(private readonly options: FencedTransactionsOptions) {
    this.claim = options.claim;
    this.store = options.store;
    this.steps = options.steps ?? new StepLedger(options.claim);
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  /** True when the step was recorded by this or an earlier holder. */
  isDone(name: string): boolean {
    return this.steps.has(name);
  }

  /**
   * Runs step `name` once across takeovers: skipped when already recorded; otherwise its writes commit
   * atomically with the step record under my fence. OwnershipLostError if superseded (nothing written),
   * BusinessConditionError if a write's `where` failed (nothing written).
   */
  runStep(name: string, writes: WritesInput, options: { result?: unknown } = {}): Promise<StepOutcome> {
    const fields = () => ({ step: name, fence: this.claim.fence });
    return traced(this.options.tracer, SpanName.step, fields, () => this.runStepOnce(name, writes, options));
  }

  private async runStepOnce(name: string, writes: WritesInput, options: { result?: unknown }): Promise<StepOutcome> {
    this.options.guard?.();
    const step = parseStep(name, options.result);
    const recorded = this.steps.get(step.name);
    if (recorded) return { status: 'skipped', result: recorded.result, record: recorded };
    const list = parseSharedWrites(
      this.store.workItemLocation(this.claim.identity),
      typeof writes === 'function' ? await writes() : writes,
    );
    const now = this.store.now();
    const plan = buildStepTransaction(this.claim, step, list, now);
    const committed = await this.commit(plan, `step ${step.name}`, step.name);
    if (committed.kind === 'skipped') {
      this.steps.record(step.name, committed.record);
      return { status: 'skipped', result: committed.record.result, record: committed.record };
    }
    this.steps.record(step.name, { fence: this.claim.fence, at: now, result: step.result ?? null });
    return { status: committed.kind, result: step.result ?? null };
  }

  /** claimed ▶ succeeded in the same transaction as the final business writes (the completion IS the fence). */
  async complete(
    outcome: JobOutcome,
    writes: readonly SharedWrite[],
  ): Promise<{ status: 'applied' | 'already_applied' }> {
    this.options.beforeComplete?.();
    const valid = parseJobOutcome(outcome);
    const list = parseSharedWrites(this.store.workItemLocation(this.claim.identity), writes);
    const plan = buildCompletionTransaction(this.claim, valid, list, this.store.now());
    const committed = await this.commit(plan, 'completion', undefined);
    return { status: committed.kind === 'applied' ? 'applied' : 'already_applied' };
  }

  /** Sends the transaction, in its span when tracing is on. */
  private commit(plan: TransactionPlan, label: string, stepName: string | undefined): Promise<Committed> {
    const fields = () => ({ write: stepName === undefined ? 'completion' : 'transaction', fence: this.claim.fence });
    return traced(this.options.tracer, SpanName.fencedWrite, fields, () => this.commitOnce(plan, label, stepName));
  }

  /** Retries only cancellations that wrote nothing and may pass next time. */
  private async commitOnce(plan: TransactionPlan, label: string, stepName: string | undefined): Promise<Committed> {
    this.options.guard?.();
    for (let attempt = 1; ; attempt += 1) {
      if (this.lost) throw this.lost;
      this.options.signal?.throwIfAborted();
      try {
        await this.store.commitFencedTransaction(this.claim, plan);
        return { kind: 'applied' };
      } catch (error) {
        const name = (error as { name?: string }).name;
        if (name === 'UnknownOperationException') {
          throw new CapabilityMissingError(
            `${label}: this DynamoDB engine has no TransactWriteItems (dynalite lacks it); class A needs DynamoDB, DynamoDB Local or moto`,
            { cause: error },
          );
        }
        if (name === 'IdempotentParameterMismatchException') {
          return this.explainWorkItem(undefined, plan, label, stepName, error);
        }
        if (!(error instanceof TransactionCanceledException)) throw error;
        const verdict = interpretCancellation(error.CancellationReasons);
        if (verdict.kind === 'work_item') return this.explainWorkItem(verdict.item, plan, label, stepName);
        if (verdict.kind === 'business')
          throw await this.businessError(plan, verdict.index, verdict.item, label, error);
        if (verdict.kind === 'transient' && attempt < this.maxAttempts) {
          await sleep(Math.min(1_000, 20 * 2 ** attempt) * (0.5 + Math.random()));
          continue;
        }
        if (verdict.kind === 'transient') {
          throw new RetryableJobError(
            'transaction_conflict',
            `${label} cancelled ${attempt} times (${verdict.codes.join(', ')}); nothing was written`,
            { cause: error },
          );
        }
        throw new TransactionCancelledError(`${label} cancelled (${verdict.codes.join(', ')}); nothing was written`, {
          cause: error,
          label,
          codes: verdict.codes,
        });
      }
    }
  }

  /** The work item refused: my own earlier commit (applied), a step another holder did (skip), or lost ownership. */
  private async explainWorkItem(
    returned: Record<string, unknown> | undefined,
    plan: TransactionPlan,
    label: string,
    stepName: string | undefined,
    tokenMismatch?: unknown,
  ): Promise<Committed> {
    const current: WorkItem | undefined = isWorkItem(returned) ? returned : await this.store.get(this.claim.identity);
    if (current && plan.transition.appliedIn(current, this.claim)) return { kind: 'already_applied' };
    const stillMine = current?.state === WorkState.claimed && current.fence === this.claim.fence;
    const record = stepName === undefined ? undefined : current?.steps?.[stepName];
    if (record && stillMine) return { kind: 'skipped', record };
    if (stillMine && tokenMismatch !== undefined) {
      // Same token, other parameters (a caller re-ran the step after an unclear error): not an ownership problem.
      throw new TransactionTokenReusedError(
        `${label}: request token reused with other parameters; nothing was written`,
        { cause: tokenMismatch, label, fence: this.claim.fence },
      );
    }
    const error = new OwnershipLostError(
      `${label} rejected: fence ${this.claim.fence} no longer holds ${formatIdentity(this.claim.identity)}; nothing was written`,
      current,
      { transition: label, fence: this.claim.fence, currentFence: current?.fence, currentState: current?.state },
    );
    this.lost = error;
    this.options.onOwnershipLost?.(error);
    throw error;
  }

  /** A business write's condition failed: name the write and the unmet attributes, from the item as it stands. */
  private async businessError(
    plan: TransactionPlan,
    index: number,
    returned: Record<string, unknown> | undefined,
    label: string,
    cause: unknown,
  ) {
    const write = plan.writes[index] as SharedWrite;
    const current =
      returned ??
      (await sendGet(this.options.client, { TableName: write.tableName, Key: { ...write.key }, ConsistentRead: true }))
        .Item;
    return businessConditionError(write.tableName, unmetExpectations(current, write.where), current, {
      label: `${label}: write ${index} (${write.kind})`,
      write: { index, kind: write.kind },
      cause,
    });
  }
}

export { FencedTransactions, type FencedTransactionsOptions, type SharedWrite, type StepOutcome, type WritesInput };
