import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { InvalidInputError, isLeasefenceError, OwnershipLostError, SuccessorRefusedError } from '../errors.js';
import { FencedRecords } from '../fenced/records.js';
import { parseStepName, parseStepResult, StepLedger } from '../fenced/steps.js';
import { FencedTransactions } from '../fenced/transaction.js';
import { sha256Hex } from '../hashing.js';
import type { JobIdentity } from '../identity.js';
import type { JobContext, ProviderDeclaration } from '../job-definition.js';
import type { Claim, WorkItemStore } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';
import { type JobTracer, SpanName, traced } from '../tracing/tracer.js';
import type { AttemptAbort } from './attempt-abort.js';
import { guardedProvider } from './guarded-provider.js';
import { createLeaseGuard } from './lease-guard.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { SuccessorBuffer } from './successors.js';

/**
 * The idempotency key for class C APIs: derived from the identity only, so it is stable across attempts
 * and takeovers, and different for the same operation id under another tenant.
 */
function idempotencyKeyFor(identity: JobIdentity): string {
  return `lf1-${sha256Hex(`idempotency\u0000${identity.tenantId}\u0000${identity.operationId}`).slice(0, 40)}`;
}

/** What building a job context needs from the runtime. */
interface ContextDependencies<Payload> {
  store: WorkItemStore;
  client: DynamoDBDocumentClient;
  claim: Claim;
  payload: Payload;
  /** The attempt's abort switch: a fenced write that finds a newer fence aborts it, the job's signal follows it. */
  abort: AttemptAbort;
  keeper: LeaseKeeper;
  /** The definition's provider declaration (class C/D): its client is built once per attempt. */
  provider?: ProviderDeclaration<unknown> | undefined;
  /** Where lease-doubt refusals are counted (`EffectRefusedInLeaseDoubt`); silent when absent. */
  telemetry?: Telemetry | undefined;
  /** Where `ctx.enqueue` keeps the successors it checked, for the completion to write (absent: every one is refused). */
  successors?: SuccessorBuffer | undefined;
  /** With tracing on: a span per step, and one per fenced write (the step's record, ctx.records' writes). */
  tracer?: JobTracer | undefined;
  /** `ctx.rateLimit` of a job type that declares rate limits; absent: every call is refused (nothing declared). */
  rateLimit?: ((provider: string) => Promise<void>) | undefined;
  /** A stack check's fault layer, watching the provider client's calls (fault injection on only; else absent). */
  observeProvider?: ProviderObserver | undefined;
}

/** Wraps a job's freshly built provider client to watch its calls; it must return a client that behaves the same. */
type ProviderObserver = <Client>(declaration: ProviderDeclaration<Client>, client: Client) => Client;

/** `ctx.rateLimit` of a job type that declares no rate limit: refused, nothing loaded. */
function undeclaredRateLimit(provider: string): Promise<void> {
  const message = `ctx.rateLimit: this job type declares no rate limit (flow.rateLimit) for provider ${JSON.stringify(provider)}`;
  return Promise.reject(
    new InvalidInputError(message, [{ path: 'provider', message: 'not declared in flow.rateLimit' }]),
  );
}

/**
 * Builds the context a job runs with. `step` records completion on the work item under the fence, so a
 * holder that takes over skips finished steps and reuses their results. `step` and `transactions.runStep`
 * share one ledger of done steps, one naming rule and the store's clock. `records`, `transactions`, `step` and
 * the provider's declared effect methods all start with the same lease guard: in lease doubt they refuse to
 * start (LeaseInDoubtError, nothing sent, the refusal counted). A step whose record is refused (a cancel or a
 * newer claim raised the fence) aborts the attempt, as a refused record write or transaction does.
 */
function buildJobContext<Payload>(deps: ContextDependencies<Payload>): JobContext<Payload> {
  const { claim, store, keeper } = deps;
  const steps = new StepLedger(claim);
  const abort = deps.abort;
  const successors = deps.successors ?? new SuccessorBuffer({ claim, payloadsAvailable: false });
  const guard = createLeaseGuard({
    keeper,
    abort,
    ...(deps.telemetry ? { telemetry: deps.telemetry } : {}),
    jobType: claim.jobType,
    fields: { identity: claim.identity, fence: claim.fence, attempt: claim.attempt },
  });
  const built = deps.provider?.create({ client: deps.client });
  const provider = deps.provider
    ? guardedProvider(deps.provider, deps.observeProvider ? deps.observeProvider(deps.provider, built) : built, guard)
    : undefined;
  // The fenced helpers are built on first use: a job uses one kind of write, often none.
  let records: FencedRecords | undefined;
  let transactions: FencedTransactions | undefined;
  return {
    identity: claim.identity,
    claim,
    fence: claim.fence,
    attempt: claim.attempt,
    payload: deps.payload,
    get signal() {
      return abort.signal;
    },
    // Computed on first use: most jobs are not class C and never read it.
    get idempotencyKey() {
      return idempotencyKeyFor(claim.identity);
    },
    client: deps.client,
    get records() {
      records ??= new FencedRecords({
        client: deps.client,
        claim,
        signal: abort,
        guard: () => guard('records'),
        onFenceRejected: (error) => abort.abort(error),
        tracer: deps.tracer,
      });
      return records;
    },
    get transactions() {
      transactions ??= new FencedTransactions({
        store,
        client: deps.client,
        claim,
        signal: abort,
        guard: () => guard('transactions'),
        onOwnershipLost: (error) => abort.abort(error),
        steps,
        tracer: deps.tracer,
        beforeComplete: () => {
          if (successors.size > 0) {
            throw new SuccessorRefusedError(
              'successors are written with the completion the runtime records: return the outcome from run instead of calling transactions.complete; nothing was written',
            );
          }
        },
      });
      return transactions;
    },
    provider,
    progress: () => keeper.progress(),
    enqueue: (jobType, payload, options) => successors.add(jobType, payload, options),
    rateLimit: deps.rateLimit ?? undeclaredRateLimit,
    step: <T>(name: string, fn: () => Promise<T>): Promise<T> =>
      traced(
        deps.tracer,
        SpanName.step,
        () => ({ step: name, fence: claim.fence }),
        () => runStep(name, fn),
      ),
  };

  async function runStep<T>(name: string, fn: () => Promise<T>): Promise<T> {
    guard('step');
    const stepName = parseStepName(name);
    const done = steps.get(stepName);
    if (done) return done.result as T;
    const result = await fn();
    abort.throwIfAborted();
    parseStepResult(stepName, result);
    try {
      const recorded = await traced(
        deps.tracer,
        SpanName.fencedWrite,
        () => ({ write: 'step', fence: claim.fence }),
        () => store.recordStep(claim, stepName, result ?? null),
      );
      steps.record(stepName, recorded);
    } catch (error) {
      // Like a refused record write or transaction: a cancel or a newer claim ends the attempt, nothing more is sent.
      if (isLeasefenceError(error, OwnershipLostError)) abort.abort(error);
      throw error;
    }
    keeper.progress();
    return result;
  }
}

export { buildJobContext, type ContextDependencies, idempotencyKeyFor, type ProviderObserver };
