import * as z from 'zod/mini';
import { InvalidInputError, RateLimitedError } from '../errors.js';
import { budgetScopeValue } from '../flow-control/budget-scope.js';
import type { RateLimit } from '../flow-control/rate-limits.js';
import type { JobIdentity } from '../identity.js';
import type { JobDefinition } from '../job-definition.js';
import type { BoundMessage } from '../messaging/envelope.js';
import type { RetryWakeOutcome, RetryWaker } from '../messaging/retry-wake.js';
import type { WakeSubject } from '../messaging/wake-envelope.js';
import { MetricName } from '../metric-names.js';
import { type BudgetRef, type Claim, claimability, type WorkItemStore } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';
import { type LoadedPayload, loadVerifiedPayload, type PayloadSources } from './load-payload.js';

/*
 * Provider rate limits on the worker's side (README.md, "Flow control"). Bundled only with `flowControl` (lib/config.ts
 * FLOW_CONTROL_CONSTANT); a job type that declares no rate limit never calls it.
 * Where a job waits:
 *   - in process, for a short bounded time (BEFORE_RUN_WAIT_MS before the claim, IN_JOB_WAIT_MS under the lease),
 *     when the next token is that close: the common case of a busy budget (50 a second: a token every 20 ms);
 *   - past that, back to queued with no attempt used and an SQS-delayed wake-up after the budget refills (a budget
 *     of a few calls a minute): the Lambda is not billed for the wait and holds no slot, the row keeps the job.
 */

/** The longest a job waits in process for a token before its claim (it holds nothing meanwhile). */
const BEFORE_RUN_WAIT_MS = 1_000;
/** The longest `ctx.rateLimit` waits in process under the lease (at most half the lease). */
const IN_JOB_WAIT_MS = 10_000;

/** What taking tokens needs: the store's budgets, where waits are counted, how to sleep and draw jitter. */
interface BudgetDependencies {
  /** The budgets (`flow`) and the store's clock (`now`: how long a job waited is measured on it). */
  readonly store: Pick<WorkItemStore, 'flow' | 'now'>;
  readonly telemetry: Telemetry;
  /** Default a timer; tests move a manual clock. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** Every token granted, or the first budget that stayed empty past the wait and how long until its next token. */
type BudgetVerdict = { granted: true } | { granted: false; provider: string; retryAfterMs: number };

/** A budget found empty past the in-process wait before the claim: which one, and how long until its next token. */
interface OverBudget {
  readonly retryAfterMs: number;
  readonly ref: BudgetRef;
}

/** The budget a job of `limit` takes from: the provider and this job's scope value. */
function budgetRefOf<Payload>(limit: RateLimit<Payload>, tenantId: string, payload: Payload): BudgetRef {
  return { provider: limit.provider, scope: scopeValueOf(limit, tenantId, payload) };
}

/**
 * The budget's scope value for one job: `shared`, the tenant, or the payload's key within the job's tenant (across
 * tenants only when declared `acrossTenants`); raw: the store hashes it.
 */
function scopeValueOf<Payload>(limit: RateLimit<Payload>, tenantId: string, payload: Payload): string {
  if (limit.scope === 'shared') return budgetScopeValue({ kind: 'shared' });
  if (limit.scope === 'tenant') return budgetScopeValue({ kind: 'tenant', tenantId });
  const key = limit.key?.(payload) as unknown;
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw new TypeError(`rate limit ${limit.provider}: key(payload) must return a string of 1-200 chars`);
  }
  return budgetScopeValue(limit.acrossTenants === true ? { kind: 'key', key } : { kind: 'key', key, tenantId });
}

/**
 * Takes one token from `limit`'s budget for this job, sleeping between tries while the total wait stays within
 * `maxWaitMs` (each sleep the time to the next token plus a spread that grows with the tries, so waiters do not
 * retry in step). `onWait` runs before each sleep (the lease keeper's progress, in a job).
 */
async function takeWithin<Payload>(
  deps: BudgetDependencies,
  limit: RateLimit<Payload>,
  ref: BudgetRef,
  maxWaitMs: number,
  onWait?: () => void,
): Promise<BudgetVerdict> {
  const spacingMs = limit.intervalMs / limit.limit;
  const random = deps.random ?? Math.random;
  let waited = 0;
  for (let tries = 1; ; tries += 1) {
    const verdict = await (await deps.store.flow()).takeToken(ref, limit);
    if (verdict.granted) return { granted: true };
    const sleepMs = verdict.retryAfterMs + Math.floor(random() * spacingMs * Math.min(tries, 8));
    if (waited + sleepMs > maxWaitMs) return { granted: false, provider: limit.provider, retryAfterMs: sleepMs };
    if (tries === 1) deps.telemetry.count(MetricName.RateLimitWaited);
    onWait?.();
    await (deps.sleep ?? sleepFor)(sleepMs);
    waited += sleepMs;
  }
}

function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The tokens a job type takes before its claim (`take: 'before-run'`), one per budget in declaration order: undefined
 * when every token was granted (or the payload a key-scoped budget needs does not verify: the claim path then deals
 * with it), else how long until the empty budget's next token. A budget still empty after BEFORE_RUN_WAIT_MS stops
 * there; tokens already taken from earlier budgets are spent (the error is on the side of fewer calls).
 */
async function overBudget(
  deps: BudgetDependencies & { store: Pick<WorkItemStore, 'flow' | 'get' | 'now'>; sources: PayloadSources },
  definition: JobDefinition<unknown>,
  { envelope, identity }: BoundMessage,
  precheck: LoadedPayload | undefined,
): Promise<OverBudget | undefined> {
  const limits = (definition.flow?.rateLimit ?? []).filter((limit) => limit.take === 'before-run');
  if (limits.length === 0 || (envelope.kind === 'wake' && !(await stillWaiting(deps.store, identity, definition)))) {
    return undefined; // nothing to take, or a late wake-up the claim path acknowledges: it spends no token
  }
  let payload: unknown;
  if (limits.some((limit) => limit.scope === 'key')) {
    const binding = 'ref' in envelope.payload ? { payloadRef: envelope.payload.ref } : {};
    const loaded =
      precheck ??
      (await loadVerifiedPayload(deps.sources, {
        identity,
        payloadHash: envelope.payloadHash,
        payloadInline: !('ref' in envelope.payload),
        ...binding,
      }));
    const parsed = loaded.ok ? z.safeParse(definition.payload, loaded.body) : undefined;
    if (!parsed?.success) return undefined;
    payload = parsed.data;
  }
  for (const limit of limits) {
    const ref = budgetRefOf(limit, identity.tenantId, payload);
    const verdict = await takeWithin(deps, limit, ref, BEFORE_RUN_WAIT_MS);
    if (!verdict.granted) return { retryAfterMs: verdict.retryAfterMs, ref };
    // A job deferred for a budget comes back by a wake-up: only a wake-up's grant looks for its waiter item.
    if (envelope.kind === 'wake') await waitEnded(deps, ref, identity);
  }
  return undefined;
}

/**
 * A job holds its token: forgets its waiter item of the budget (one DeleteItem) and, when it had waited, emits how
 * long (RateLimitWaitSeconds, the RateLimitWait alarm's). A failed delete is only warned about: the item stays
 * counted until its TTL, and the job runs.
 */
async function waitEnded(deps: BudgetDependencies, ref: BudgetRef, identity: JobIdentity): Promise<void> {
  try {
    const since = await (await deps.store.flow()).forgetBudgetWait(ref, identity);
    if (since !== undefined) waitedSeconds(deps, since);
  } catch (error) {
    deps.telemetry.warn('budget waiter not removed: it stays counted until its TTL', { identity, error });
  }
}

/**
 * A job goes back to queued to wait on a budget for `waitMs`: records it as the budget's waiter (one UpdateItem) and
 * emits how long it has waited so far. A failed write is only warned about (the job still waits, uncounted).
 */
async function waitBegan(
  deps: BudgetDependencies,
  wait: { ref: BudgetRef; identity: JobIdentity; jobType: string; waitMs: number },
): Promise<void> {
  try {
    waitedSeconds(deps, await (await deps.store.flow()).recordBudgetWait(wait));
  } catch (error) {
    deps.telemetry.warn('budget waiter not recorded: this wait is not counted', { identity: wait.identity, error });
  }
}

function waitedSeconds(deps: BudgetDependencies, since: number): void {
  const seconds = Math.max(0, deps.store.now() - since) / 1000;
  deps.telemetry.gauge(MetricName.RateLimitWaitSeconds, seconds, 'Seconds');
}

/** A wake-up's row can still be claimed (one eventually consistent read): else the wake-up takes no token. */
async function stillWaiting(
  store: Pick<WorkItemStore, 'get' | 'now'>,
  identity: BoundMessage['identity'],
  definition: JobDefinition<unknown>,
): Promise<boolean> {
  const row = await store.get(identity, { consistent: false });
  return row !== undefined && claimability(row, store.now(), definition.version).claimable;
}

/** The delay of a deferred job's wake-up: the time to the next token plus a spread, so waiters come back apart. */
function deferralDelayMs(retryAfterMs: number, random: () => number = Math.random): number {
  return retryAfterMs + Math.floor(random() * Math.max(1_000, 2 * retryAfterMs));
}

/**
 * The wake-up of a row left queued because its budget was empty before the claim (no attempt used): after the
 * budget's next token plus a spread, in the job's lane; the sweeper is the backstop.
 */
async function wakeDeferred(
  deps: BudgetDependencies,
  definition: JobDefinition<unknown>,
  { envelope, identity }: BoundMessage,
  { retryAfterMs, ref, retryWaker }: OverBudget & { retryWaker: RetryWaker | undefined },
): Promise<{ status: 'deferred'; reason: 'rate_limited'; identity: JobIdentity }> {
  const { telemetry } = deps;
  const delayMs = deferralDelayMs(retryAfterMs);
  await waitBegan(deps, { ref, identity, jobType: envelope.jobType, waitMs: delayMs });
  const subject: WakeSubject = {
    tenantId: envelope.tenantId,
    operationId: envelope.operationId,
    jobType: envelope.jobType,
    jobVersion: envelope.jobVersion ?? definition.version,
    payloadHash: envelope.payloadHash,
    ...('ref' in envelope.payload ? { payloadRef: envelope.payload.ref } : { payloadInline: true }),
  };
  const wake = retryWaker ? await retryWaker(subject, delayMs) : 'sweeper_only';
  telemetry.count(MetricName.RateLimitDeferred);
  const fields = { identity, jobType: envelope.jobType, waitMs: delayMs, wake };
  telemetry.info('provider budget empty: message acknowledged, row left queued', fields);
  return { status: 'deferred', reason: 'rate_limited', identity };
}

/**
 * `ctx.rateLimit(provider)`: one token from the budget the job type declares for `provider`, waiting in process
 * (renewing the lease through `keepAlive`) up to IN_JOB_WAIT_MS or half the lease. Past that RateLimitedError (the
 * runtime gives the attempt back); InvalidInputError for an undeclared provider. Nothing is taken on either error.
 */
async function takeInJob<Payload>(
  deps: BudgetDependencies,
  limits: readonly RateLimit<Payload>[] | undefined,
  provider: string,
  job: { claim: Claim; payload: Payload; leaseMs: number; keepAlive: () => void },
): Promise<void> {
  const limit = limits?.find((candidate) => candidate.provider === provider);
  if (limit === undefined) {
    const message = `ctx.rateLimit: this job type declares no rate limit for provider ${JSON.stringify(provider)}`;
    throw new InvalidInputError(message, [{ path: 'provider', message: 'not declared in flow.rateLimit' }]);
  }
  const maxWaitMs = Math.min(IN_JOB_WAIT_MS, Math.floor(job.leaseMs / 2));
  const { identity } = job.claim;
  const ref = budgetRefOf(limit, identity.tenantId, job.payload);
  const verdict = await takeWithin(deps, limit, ref, maxWaitMs, job.keepAlive);
  if (verdict.granted) {
    // Only a job that went back to queued for a budget before (an attempt ended `rate_limited`) has a waiter item.
    if (job.claim.history.some((entry) => entry.r === 'rate_limited')) await waitEnded(deps, ref, identity);
    return;
  }
  const waitMs = verdict.retryAfterMs + Math.max(1_000, 2 * verdict.retryAfterMs); // deferralDelayMs at its longest
  await waitBegan(deps, { ref, identity, jobType: job.claim.jobType, waitMs });
  throw new RateLimitedError(
    `provider ${provider}: budget empty for ${verdict.retryAfterMs} ms more; the job waits queued, its attempt given back`,
    provider,
    verdict.retryAfterMs,
  );
}

/**
 * `ctx.rateLimit` found the budget empty past the in-process wait: claimed ▶ queued with the attempt given back
 * (a budget wait is not an attempt, never a failure), then its own delayed wake-up once the row committed.
 * OwnershipLostError when superseded (the caller records it as ownership lost).
 */
async function awaitBudget(
  deps: { store: WorkItemStore; telemetry: Telemetry; retryWaker?: RetryWaker },
  claim: Claim,
  error: RateLimitedError,
  subject: WakeSubject,
): Promise<{
  state: 'rate_limited';
  errorCode: 'rate_limited';
  provider: string;
  wake: RetryWakeOutcome | 'sweeper_only';
}> {
  const delayMs = deferralDelayMs(error.retryAfterMs);
  await (await deps.store.flow()).awaitBudget(claim, { errorCode: 'rate_limited', message: error.message }, delayMs);
  deps.telemetry.count(MetricName.RateLimitDeferred);
  const wake = deps.retryWaker ? await deps.retryWaker(subject, delayMs) : 'sweeper_only';
  return { state: 'rate_limited', errorCode: 'rate_limited', provider: error.provider, wake };
}

export {
  awaitBudget,
  BEFORE_RUN_WAIT_MS,
  deferralDelayMs,
  IN_JOB_WAIT_MS,
  type OverBudget,
  overBudget,
  takeInJob,
  wakeDeferred,
};
