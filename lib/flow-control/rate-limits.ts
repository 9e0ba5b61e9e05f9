import * as z from 'zod/mini';
import { InvalidInputError } from '../errors.js';
import { builtOnce } from '../internal/memoize.js';
import { parseInput } from '../internal/validation.js';
import { PROVIDER_NAME } from './budget-scope.js';

/**
 * Whose calls share one budget: every job of the deployment (`shared`), each tenant its own (`tenant`), or each
 * value the declaration's `key` derives from the parsed payload (`key`, e.g. one budget per merchant account): per
 * tenant (a tenant's key), unless the declaration says `acrossTenants: true`.
 */
type RateLimitScope = 'shared' | 'tenant' | 'key';

/**
 * When the worker takes the token: `before-run` (the default) takes one from the budget before it claims the job, so
 * a job over budget has used no attempt and holds no slot; `in-job` takes none itself: the job calls
 * `await ctx.rateLimit(provider)` right before each call to the provider.
 */
type RateLimitTake = 'before-run' | 'in-job';

/**
 * A provider's budget as a job type declares it: at most `limit` calls per `intervalMs` (a token bucket refilled at
 * `limit / intervalMs`, holding at most `burst` tokens, default 1: then no window of `intervalMs` ever sees more than
 * `limit` grants; with a burst B, at most `limit + B - 1`). Job types naming the same `provider` and scope share the
 * budget: declare it once (`const stripe = { provider: 'stripe', ... }`) and reuse it, so they agree on its numbers.
 */
interface RateLimitDeclaration<Payload = unknown> {
  /** The budget's name, 1–64 chars of `[A-Za-z0-9._-]` (`stripe`, `sendgrid.eu`). */
  readonly provider: string;
  readonly limit: number;
  readonly intervalMs: number;
  readonly burst?: number;
  readonly scope?: RateLimitScope;
  /**
   * Scope `key` only: the budget's key from the parsed payload (1–200 chars; hashed before it is stored). Method
   * syntax on purpose: the worker calls it only with what this job's own schema parsed (as `run`).
   */
  key?(payload: Payload): string;
  /**
   * Scope `key` only: one budget per key across every tenant (tenants naming the same key share it, so one can
   * empty it for the others). Default false: each tenant's key has its own budget.
   */
  readonly acrossTenants?: boolean;
  readonly take?: RateLimitTake;
}

/** A declaration after parsing: defaults filled in. */
interface RateLimit<Payload = unknown> extends RateLimitDeclaration<Payload> {
  readonly burst: number;
  readonly scope: RateLimitScope;
  readonly take: RateLimitTake;
}

// Built on first use (builtOnce): a deployment whose job types declare no rate limit never builds it.
const rateLimitSchema = builtOnce(() =>
  z
    .object({
      provider: z.string().check(z.regex(PROVIDER_NAME, 'a provider name: 1-64 chars of [A-Za-z0-9._-]')),
      limit: z.number().check(z.int(), z.gte(1), z.lte(1_000_000)),
      intervalMs: z.number().check(z.int(), z.gte(1), z.lte(24 * 60 * 60 * 1000)),
      burst: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1_000_000))),
      scope: z.optional(z.enum(['shared', 'tenant', 'key'])),
      key: z.optional(z.custom<(payload: unknown) => string>((value) => typeof value === 'function', 'a function')),
      acrossTenants: z.optional(z.boolean()),
      take: z.optional(z.enum(['before-run', 'in-job'])),
    })
    .check(
      z.refine((value) => (value.scope === 'key') === (value.key !== undefined), {
        message: "scope 'key' needs a key(payload) function, and key is for scope 'key' only",
        path: ['key'],
      }),
      z.refine((value) => value.acrossTenants === undefined || value.scope === 'key', {
        message: "acrossTenants is for scope 'key' only",
        path: ['acrossTenants'],
      }),
    ),
);

const rateLimitsSchema = builtOnce(() => z.array(rateLimitSchema()).check(z.minLength(1), z.maxLength(8)));

/**
 * A job type's rate limits, parsed once at definition time, defaults filled in. Throws InvalidInputError (defineJob
 * turns it into JobDefinitionError) naming the bad field, or a provider declared twice on one type.
 */
function parseRateLimits<Payload>(
  input: RateLimitDeclaration<Payload> | readonly RateLimitDeclaration<Payload>[],
  what: string,
): readonly RateLimit<Payload>[] {
  const list = (Array.isArray(input) ? input : [input]) as readonly RateLimitDeclaration<Payload>[];
  parseInput(rateLimitsSchema(), list, what, { once: true });
  const names = new Set(list.map((declaration) => declaration.provider));
  if (names.size !== list.length) {
    const message = 'a provider is declared twice on this job type';
    throw new InvalidInputError(`${what}: ${message}`, [{ path: 'provider', message }]);
  }
  return Object.freeze(
    list.map((declaration) =>
      Object.freeze({
        ...declaration,
        burst: declaration.burst ?? 1,
        scope: declaration.scope ?? 'shared',
        take: declaration.take ?? 'before-run',
      }),
    ),
  );
}

export { parseRateLimits, type RateLimit, type RateLimitDeclaration, type RateLimitScope, type RateLimitTake };
