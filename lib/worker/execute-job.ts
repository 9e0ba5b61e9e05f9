import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  CapabilityMissingError,
  FenceRejectedError,
  isLeasefenceError,
  LeaseInDoubtError,
  OwnershipLostError,
  PayloadConflictError,
  RateLimitedError,
  RetryableJobError,
  SuccessorRefusedError,
  TerminalJobError,
} from '../errors.js';
import { fenceRefusalCode, RESTORE_MISMATCH_CODE } from '../fenced/fence-terms.js';
import {
  type AnyJobDefinition,
  type JobContext,
  type JobDefinition,
  type JobRegistry,
  retryDelayMs,
} from '../job-definition.js';
import type { RetryWakeOutcome, RetryWaker } from '../messaging/retry-wake.js';
import type { WakeSubject } from '../messaging/wake-envelope.js';
import { MetricName } from '../metric-names.js';
import { WorkState } from '../states.js';
import type { Claim, LeaseRequest, WorkItemStore } from '../store/index.js';
import { type JobOutcome, parseJobOutcome, type ValidOutcome } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';
import { SpanName, traced } from '../tracing/tracer.js';
import { AttemptAbort } from './attempt-abort.js';
import { loadRateGate } from './flow-loader.js';
import { buildJobContext, type ProviderObserver } from './job-context.js';
import { LeaseKeeper } from './lease-keeper.js';
import { type CompletionDependencies, completeClaim, SuccessorBuffer } from './successors.js';

/** How one claimed job ended, from this worker's point of view. */
type ExecutionResult =
  | { state: typeof WorkState.succeeded; outcome: JobOutcome; reconciled: boolean }
  | { state: typeof WorkState.failed_terminal | typeof WorkState.unknown; errorCode: string }
  | { state: typeof WorkState.queued; errorCode: string; wake: RetryWakeOutcome | 'sweeper_only' }
  | { state: 'rate_limited'; errorCode: 'rate_limited'; provider: string; wake: RetryWakeOutcome | 'sweeper_only' }
  | { state: 'ownership_lost'; reason: string }
  | { state: 'lease_in_doubt'; reason: string };

/** What executing a job needs; `registry`, `payloads` and `wake` let a job enqueue successors (`ctx.enqueue`). */
interface ExecutionDependencies extends Omit<CompletionDependencies, 'store' | 'telemetry'> {
  store: WorkItemStore;
  client: DynamoDBDocumentClient;
  telemetry: Telemetry;
  /** The job types a successor may have (its schema and attempt budget come from here). */
  registry?: Pick<JobRegistry, 'get'> | undefined;
  /** Milliseconds between lease checks; defaults to a third of the lease. */
  heartbeatIntervalMs?: number;
  /** Sends a queued retry its own wake-up; without it the sweeper wakes every retry (`wake: 'sweeper_only'`). */
  retryWaker?: RetryWaker;
  /** Called after each confirmed lease renewal (the claim's concurrency slots follow it); false: lease doubt. */
  onLeaseRenewed?: (renewed: Claim) => Promise<boolean>;
  /** How an in-process budget wait sleeps (`ctx.rateLimit`); default a timer. */
  sleep?: (ms: number) => Promise<void>;
  /** A stack check's fault layer watching each attempt's provider client (fault injection on only). */
  observeProvider?: ProviderObserver;
}

/**
 * Runs one claimed job to a recorded outcome: reconcile first when class C retries, run with a progress-driven
 * lease (renewed by `lease`, the one the claim was made with), then complete / fail / park under the claim's fence. An ambiguous outcome never becomes success or a
 * blind retry: class D and exhausted jobs park as unknown; class C retries only through reconcile.
 */
async function executeClaimedJob<Payload>(
  deps: ExecutionDependencies,
  definition: JobDefinition<Payload>,
  claim: Claim,
  lease: LeaseRequest,
  payload: Payload,
): Promise<ExecutionResult> {
  const abort = new AttemptAbort();
  const keeper = new LeaseKeeper({
    store: deps.store,
    claim,
    leaseMs: lease.leaseMs,
    intervalMs: deps.heartbeatIntervalMs ?? Math.floor(lease.leaseMs / 3),
    telemetry: deps.telemetry,
    onOwnershipLost: (error) => abort.abort(error),
    onDoubt: (error) => abort.abort(error),
    ...(deps.onLeaseRenewed ? { onRenewed: deps.onLeaseRenewed } : {}),
  });
  const successors = new SuccessorBuffer({
    claim,
    registry: deps.registry,
    payloadsAvailable: deps.payloads !== undefined,
    now: () => deps.store.now(),
  });
  const context = buildJobContext({
    successors,
    store: deps.store,
    client: deps.client,
    claim,
    payload,
    abort,
    keeper,
    provider: definition.provider,
    observeProvider: deps.observeProvider,
    telemetry: deps.telemetry,
    tracer: deps.tracer,
    // Defined out without flow control: that worker (WorkerRuntime, this module's one caller) refused such types at start.
    rateLimit:
      process.env.LEASEFENCE_FLOW_CONTROL !== 'omitted' && definition.flow?.rateLimit
        ? async (provider) => {
            const job = { claim, payload, leaseMs: lease.leaseMs, keepAlive: () => keeper.progress() };
            await (await loadRateGate()).takeInJob(deps, definition.flow?.rateLimit, provider, job);
          }
        : undefined,
  });
  const fields = () => ({
    identity: claim.identity,
    jobType: claim.jobType,
    fence: claim.fence,
    attempt: claim.attempt,
  });
  keeper.start();
  try {
    let phase: Phase;
    try {
      phase = await traced(deps.tracer, SpanName.run, fields, () => runPhase(definition, context, claim, abort));
    } catch (error) {
      return await recordFailure(deps, definition, claim, error);
    }
    // Outside the catch: a failed completion write must not be mistaken for a failed job. A transient error
    // propagates (the message is redelivered and the next claim reconciles); only a lost fence is absorbed.
    try {
      if (phase.ended === 'run') {
        const { outcome, reconciled } = phase;
        return await traced(deps.tracer, SpanName.complete, fields, () =>
          succeed(deps, claim, outcome, reconciled, successors),
        );
      }
      await deps.store.parkUnknown(claim, { errorCode: phase.errorCode, message: phase.reason });
      return { state: WorkState.unknown, errorCode: phase.errorCode };
    } catch (error) {
      if (isLeasefenceError(error, OwnershipLostError)) return ownershipLost(deps, claim, error);
      throw error;
    }
  } finally {
    await keeper.stop();
  }
}

/** How the job phase ended: a reported outcome, or an outcome nobody can tell (parked as unknown with `errorCode`). */
type Phase =
  | { ended: 'run'; outcome: ValidOutcome; reconciled: boolean }
  | { ended: 'cannot_tell'; errorCode: string; reason: string };

/**
 * Reconcile (class C, whenever an earlier claim may have started the effect) then run; a class D job whose
 * effect may have happened never runs again. Returns what the job reported, throws what it threw.
 */
async function runPhase<Payload>(
  definition: JobDefinition<Payload>,
  context: JobContext<Payload>,
  claim: Claim,
  abort: AttemptAbort,
): Promise<Phase> {
  // The effect mark, not the attempt counter: an operator retry resets attempts but never the mark.
  if (definition.target === 'D' && claim.effectMayHaveHappened) {
    return {
      ended: 'cannot_tell',
      errorCode: 'effect_may_have_happened',
      reason: 'class D job requeued while its effect may have happened; an operator must state it did not',
    };
  }
  if (definition.target === 'C' && claim.effectMayHaveHappened && definition.reconcile) {
    const found = await abort.race(definition.reconcile(context));
    if (found.status === 'done') {
      return {
        ended: 'run',
        outcome: parseJobOutcome(found.outcome, 'reconciled outcome'),
        reconciled: true,
      };
    }
    if (found.status === 'cannot_tell')
      return { ended: 'cannot_tell', errorCode: 'reconcile_cannot_tell', reason: found.reason };
  }
  // A lost lease stops waiting at once (the job's writes are fenced anyway).
  const outcome = await abort.race(definition.run(context));
  abort.throwIfAborted();
  return { ended: 'run', outcome: parseJobOutcome(outcome), reconciled: false };
}

async function succeed(
  deps: ExecutionDependencies,
  claim: Claim,
  outcome: ValidOutcome,
  reconciled: boolean,
  successors: SuccessorBuffer,
): Promise<ExecutionResult> {
  try {
    await completeClaim(deps, claim, outcome, successors);
  } catch (error) {
    if (!isLeasefenceError(error, PayloadConflictError)) throw error;
    // Another job holds a successor's identity: nothing was written, and the same run would ask for it again.
    const errorCode = 'successor_conflict';
    await deps.store.failTerminal(claim, { errorCode, message: error.message });
    return { state: WorkState.failed_terminal, errorCode };
  }
  return { state: WorkState.succeeded, outcome, reconciled };
}

/** Maps a thrown error to the recorded state; a store write that finds the fence superseded ends it as ownership lost. */
async function recordFailure(
  deps: ExecutionDependencies,
  definition: AnyJobDefinition,
  claim: Claim,
  error: unknown,
): Promise<ExecutionResult> {
  try {
    return await classifyAndRecord(deps, definition, claim, error);
  } catch (writeError) {
    if (isLeasefenceError(writeError, OwnershipLostError)) return ownershipLost(deps, claim, writeError);
    throw writeError;
  }
}

async function classifyAndRecord(
  deps: ExecutionDependencies,
  definition: AnyJobDefinition,
  claim: Claim,
  error: unknown,
): Promise<ExecutionResult> {
  if (isLeasefenceError(error, OwnershipLostError)) return ownershipLost(deps, claim, error);
  // Lease doubt: another worker may hold the job. Nothing is written: the lease lapses to the next claim.
  if (isLeasefenceError(error, LeaseInDoubtError)) return { state: 'lease_in_doubt', reason: error.message };
  if (isLeasefenceError(error, FenceRejectedError)) {
    if (error.superseded === true) return supersededOrRestoreMismatch(deps, claim, error);
    return refusedByFence(deps, claim, error);
  }
  if (isLeasefenceError(error, SuccessorRefusedError)) {
    // The job asked for a successor that cannot be written: its code is wrong, a retry would ask again.
    const errorCode = 'successor_refused';
    await deps.store.failTerminal(claim, { errorCode, message: error.message });
    return { state: WorkState.failed_terminal, errorCode };
  }
  if (isLeasefenceError(error, TerminalJobError)) {
    const errorCode = String(error.errorCode);
    await deps.store.failTerminal(claim, { errorCode, message: error.message });
    return { state: WorkState.failed_terminal, errorCode };
  }
  if (isLeasefenceError(error, CapabilityMissingError)) {
    // Raised before anything was sent (e.g. TransactWriteItems on an engine without it): a confirmed failure.
    await deps.store.failTerminal(claim, {
      errorCode: 'engine_capability_missing',
      message: error.message,
    });
    return { state: WorkState.failed_terminal, errorCode: 'engine_capability_missing' };
  }
  if (isLeasefenceError(error, RateLimitedError))
    return (await loadRateGate()).awaitBudget(deps, claim, error, wakeSubjectOf(claim));
  if (isLeasefenceError(error, RetryableJobError)) {
    return retryLater(deps, definition, claim, { errorCode: String(error.errorCode), message: error.message });
  }
  // Anything else is ambiguous: the side effect may have happened.
  const errorCode = 'ambiguous_outcome';
  const message = unclassifiedErrorText(error);
  const mayRetry = definition.target !== 'D' && claim.attempt < claim.maxAttempts;
  if (!mayRetry) {
    await deps.store.parkUnknown(claim, { errorCode, message });
    return { state: WorkState.unknown, errorCode };
  }
  return retryLater(deps, definition, claim, { errorCode, message });
}

/**
 * claimed ▶ queued after the job's backoff (or ▶ failed_terminal on the last attempt), then, once that row has
 * committed, the retry's own wake-up: a retry never waits for the sweeper, which stays the backstop.
 */
async function retryLater(
  deps: ExecutionDependencies,
  definition: AnyJobDefinition,
  claim: Claim,
  failure: { errorCode: string; message: string },
): Promise<ExecutionResult> {
  const delayMs = retryDelayMs(definition, claim.attempt);
  const state = await deps.store.failRetryable(claim, { ...failure, retryDelayMs: delayMs });
  if (state !== WorkState.queued) return { state: WorkState.failed_terminal, errorCode: failure.errorCode };
  const wake = deps.retryWaker
    ? await deps.retryWaker(wakeSubjectOf(claim), delayMs, deps.tracer?.carrier())
    : 'sweeper_only';
  return { state: WorkState.queued, errorCode: failure.errorCode, wake };
}

/** The fields of the claimed row a wake-up names (identity, job type, payload binding; never a body). */
function wakeSubjectOf(claim: Claim): WakeSubject {
  return {
    tenantId: claim.identity.tenantId,
    operationId: claim.identity.operationId,
    jobType: claim.jobType,
    payloadHash: claim.payloadHash,
    payloadInline: claim.payloadInline,
    ...(claim.payloadRef !== undefined ? { payloadRef: claim.payloadRef } : {}),
  };
}

/**
 * What the row (and the parked indexes, and every tenant reading it) keeps of an error the job did not classify:
 * the error's class name only. Its message may quote anything the job touched (Node's JSON.parse errors quote
 * their input), so it is never stored; the job's own logs are where it belongs.
 */
function unclassifiedErrorText(error: unknown): string {
  if (!(error instanceof Error)) return 'the job threw a value that is not an Error';
  const name = /^[A-Za-z_$][\w$]{0,63}$/.test(error.name) ? error.name : 'Error';
  return `the job threw ${name} (its message is not stored)`;
}

/**
 * A fence refusal that is not a newer claim: the job's own writes are wrong (same record twice in one claim,
 * sequence not newer, confirm without stamp, a record another operation fences). The refused write did not
 * land and running the same code again would be refused again, so the attempt ends failed_terminal (parked
 * for the owner) with a code naming the refusal, e.g. `fence_same_claim_already_wrote`.
 */
async function refusedByFence(
  deps: ExecutionDependencies,
  claim: Claim,
  error: FenceRejectedError,
): Promise<ExecutionResult> {
  const errorCode = fenceRefusalCode(error.reason);
  deps.telemetry.count(MetricName.FenceRefusedByJob);
  await deps.store.failTerminal(claim, { errorCode, message: error.message });
  return { state: WorkState.failed_terminal, errorCode };
}

/**
 * A record holds a `writer_epoch` above my fence. Either a newer claim wrote it (the row's fence moved on: I am
 * superseded), or no claim the jobs table knows did (the table was restored to an earlier point than the records):
 * the park, conditional on the row still holding my fence in `claimed`, tells the two apart in the write itself. When
 * it lands, every fence this row has issued is below the record's, so no retry could ever write it: the job is
 * parked `restore_mismatch` (failed_terminal, which raise-fences requeues) and RestoreMismatch raises the alarm,
 * instead of being claimed and refused until the sweeper gives up. When it is refused, the newer claim exists.
 */
async function supersededOrRestoreMismatch(
  deps: ExecutionDependencies,
  claim: Claim,
  error: FenceRejectedError,
): Promise<ExecutionResult> {
  const message =
    `a record of ${error.tableName ?? 'a record table'} holds writer_epoch ${String(error.recordEpoch)}, above every fence ` +
    `the jobs table has issued for this job (${claim.fence}): the jobs table was restored to an earlier point than the ` +
    'record tables. Stop the workers and run raise-fences (infra/README.md, "Restoring from a backup"); it requeues this job.';
  try {
    await deps.store.failTerminal(claim, { errorCode: RESTORE_MISMATCH_CODE, message });
  } catch (parkError) {
    if (isLeasefenceError(parkError, OwnershipLostError)) return ownershipLost(deps, claim, error);
    throw parkError;
  }
  deps.telemetry.count(MetricName.RestoreMismatch);
  return { state: WorkState.failed_terminal, errorCode: RESTORE_MISMATCH_CODE };
}

function ownershipLost(
  deps: ExecutionDependencies,
  claim: Claim,
  error: OwnershipLostError | FenceRejectedError,
): ExecutionResult {
  if (isLeasefenceError(error, FenceRejectedError))
    deps.telemetry.count(MetricName.StaleFenceRejected, 1, claim.jobType);
  else deps.telemetry.count(MetricName.OwnershipLost);
  return { state: 'ownership_lost', reason: error.code };
}

export { type ExecutionDependencies, type ExecutionResult, executeClaimedJob, wakeSubjectOf };
