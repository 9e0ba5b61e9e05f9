import { InvalidInputError, RateLimitedError } from '../errors.js';
import { type RateLimit, scopeValueOf } from '../flow-control/rate-limits.js';
import type { BoundEnvelope } from '../messaging/envelope.js';
import type { WakeSubject } from '../messaging/wake-envelope.js';
import { MetricName } from '../metric-names.js';
import type { WorkItemStore } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';

/*
 * Provider rate limits on the worker's side (README.md, "Flow control"). Loaded on first use: a deployment whose job
 * types declare no rate limit never evaluates this module. Where a job waits:
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
  readonly store: Pick<WorkItemStore, 'takeToken'>;
  readonly telemetry: Telemetry;
  /** Default a timer; tests move a manual clock. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** Every token granted, or the first budget that stayed empty past the wait and how long until its next token. */
type BudgetVerdict = { granted: true } | { granted: false; provider: string; retryAfterMs: number };

/**
 * Takes one token from `limit`'s budget for this job, sleeping between tries while the total wait stays within
 * `maxWaitMs` (each sleep the time to the next token plus a spread that grows with the tries, so waiters do not
 * retry in step). `onWait` runs before each sleep (the lease keeper's progress, in a job).
 */
async function takeWithin<Payload>(
  deps: BudgetDependencies,
  limit: RateLimit<Payload>,
  scope: string,
  maxWaitMs: number,
  onWait?: () => void,
): Promise<BudgetVerdict> {
  const ref = { provider: limit.provider, scope };
  const spacingMs = limit.intervalMs / limit.limit;
  const random = deps.random ?? Math.random;
  let waited = 0;
  for (let tries = 1; ; tries += 1) {
    const verdict = await deps.store.takeToken(ref, limit);
    if (verdict.granted) return { granted: true };
    const sleepMs = verdict.retryAfterMs + Math.floor(random() * spacingMs * Math.min(tries, 8));
    if (waited + sleepMs > maxWaitMs) return { granted: false, provider: limit.provider, retryAfterMs: sleepMs };
    if (tries === 1) deps.telemetry.count(MetricName.RateLimitWaited);
    onWait?.();
    await (deps.sleep ?? sleepFor)(sleepMs);
    waited += sleepMs;
  }
}

/**
 * The tokens a job type takes before its claim (`take: 'before-run'`), one per budget in declaration order. A budget
 * still empty after BEFORE_RUN_WAIT_MS stops there (tokens already taken from earlier budgets are spent: the error is
 * on the side of fewer calls). `payload` is needed only for scope `key`.
 */
async function takeBeforeRun<Payload>(
  deps: BudgetDependencies,
  limits: readonly RateLimit<Payload>[],
  tenantId: string,
  payload: Payload,
): Promise<BudgetVerdict> {
  for (const limit of limits) {
    if (limit.take !== 'before-run') continue;
    const verdict = await takeWithin(deps, limit, scopeValueOf(limit, tenantId, payload), BEFORE_RUN_WAIT_MS);
    if (!verdict.granted) return verdict;
  }
  return { granted: true };
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
  job: { tenantId: string; payload: Payload; leaseMs: number; keepAlive: () => void },
): Promise<void> {
  const limit = limits?.find((candidate) => candidate.provider === provider);
  if (limit === undefined) {
    const message = `ctx.rateLimit: this job type declares no rate limit for provider ${JSON.stringify(provider)}`;
    throw new InvalidInputError(message, [{ path: 'provider', message: 'not declared in flow.rateLimit' }]);
  }
  const maxWaitMs = Math.min(IN_JOB_WAIT_MS, Math.floor(job.leaseMs / 2));
  const scope = scopeValueOf(limit, job.tenantId, job.payload);
  const verdict = await takeWithin(deps, limit, scope, maxWaitMs, job.keepAlive);
  if (verdict.granted) return;
  throw new RateLimitedError(
    `provider ${provider}: budget empty for ${verdict.retryAfterMs} ms more; the job waits queued, its attempt given back`,
    provider,
    verdict.retryAfterMs,
  );
}

function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The delay of a deferred job's wake-up: the time to the next token plus a spread, so waiters come back apart. */
function deferralDelayMs(retryAfterMs: number, random: () => number = Math.random): number {
  return retryAfterMs + Math.floor(random() * Math.max(1_000, 2 * retryAfterMs));
}

/** The row a first message or wake-up names, as its wake-up names it (no body). */
function wakeSubjectOfEnvelope(envelope: BoundEnvelope, jobVersion: number): WakeSubject {
  return {
    tenantId: envelope.tenantId,
    operationId: envelope.operationId,
    jobType: envelope.jobType,
    jobVersion: envelope.jobVersion ?? jobVersion,
    payloadHash: envelope.payloadHash,
    ...('ref' in envelope.payload ? { payloadRef: envelope.payload.ref } : { payloadInline: true }),
  };
}

export {
  BEFORE_RUN_WAIT_MS,
  type BudgetDependencies,
  type BudgetVerdict,
  deferralDelayMs,
  IN_JOB_WAIT_MS,
  takeBeforeRun,
  takeInJob,
  wakeSubjectOfEnvelope,
};
