import * as z from 'zod/mini';
import type { JobIdentity } from '../identity.js';
import { builtOnce } from '../internal/memoize.js';
import { parseInput } from '../internal/validation.js';

/**
 * Concurrency limits of a job type (issue #42): how many of its jobs may run at once across every worker, per
 * scope. Each running job holds one slot of each limit in the jobs table, under its own lease (README, "Concurrency
 * limits"). A limit governs liveness, never safety: the fence still decides whose writes count.
 */
interface ConcurrencyLimits<Payload = unknown> {
  /** At most this many jobs of the type run at once across the deployment. */
  readonly type?: number;
  /** At most this many jobs of the type run at once per tenant. */
  readonly perTenant?: number;
  /**
   * At most `limit` jobs of the type run at once per key the payload names (within its tenant: one tenant's key
   * never blocks another tenant's). The key is hashed before it is stored.
   */
  readonly perKey?: PerKeyLimit<Payload>;
  /** How long a job over its limit waits queued before it looks again if no freed slot woke it (default 30 s). */
  readonly recheckMs?: number;
}

/** A limit per key the payload names: `key` derives it (1 to 256 chars), `limit` slots per key. */
interface PerKeyLimit<Payload> {
  readonly limit: number;
  /** Method syntax on purpose: the worker calls it only with what this job's own schema parsed (as `run`). */
  key(payload: Payload): string;
}

/** The most slots one limit may have: each is an item the acquirer may have to try (README, "Concurrency limits"). */
const MAX_SLOTS = 1_000;
/** The longest re-check delay: SQS delays a message at most 15 minutes. */
const MAX_RECHECK_MS = 900_000;
const DEFAULT_RECHECK_MS = 30_000;

const slotCount = () => z.number().check(z.int(), z.gte(1), z.lte(MAX_SLOTS));

// Built on the first definition that declares limits, not at import (not even a z.lazy): a deployment without limits
// builds no zod instance for them (test/unit/internal/module-scope-schemas.test.ts).
const concurrencySchema = builtOnce(() =>
  z
    .strictObject({
      type: z.optional(slotCount()),
      perTenant: z.optional(slotCount()),
      perKey: z.optional(
        z.strictObject({
          limit: slotCount(),
          key: z.custom<(payload: unknown) => string>((value) => typeof value === 'function', 'must be a function'),
        }),
      ),
      recheckMs: z.optional(z.number().check(z.int(), z.gte(1_000), z.lte(MAX_RECHECK_MS))),
    })
    .check(
      z.refine((limits) => limits.type !== undefined || limits.perTenant !== undefined || limits.perKey !== undefined, {
        message: 'declare at least one of type, perTenant, perKey',
      }),
    ),
);

/** The limits of a definition, checked: InvalidInputError naming every bad field (defineJob wraps it), nothing kept. */
function parseConcurrencyLimits<Payload>(value: unknown, what: string): ConcurrencyLimits<Payload> {
  parseInput(concurrencySchema(), value, what, { once: true });
  return Object.freeze({ ...(value as ConcurrencyLimits<Payload>) });
}

/** Which limit a slot belongs to: the type's, one tenant's, or one key's within a tenant. */
type LimitScope =
  | { readonly kind: 'type' }
  | { readonly kind: 'tenant'; readonly tenantId: string }
  | { readonly kind: 'key'; readonly tenantId: string; readonly key: string };

/** One limit a job must hold a slot of: its scope and its number of slots. */
interface SlotLimit {
  readonly scope: LimitScope;
  readonly limit: number;
}

/** A per-key function returned something that is not a key (1 to 256 chars): the job's code is wrong. */
const INVALID_KEY = 'concurrency_key_invalid';

/**
 * The limits a job holds a slot of, in one fixed order (type, tenant, key), or `invalid_key` when the per-key
 * function threw or returned no usable key (1 to 256 characters of a string).
 */
function limitsOf<Payload>(
  limits: ConcurrencyLimits<Payload>,
  identity: JobIdentity,
  payload: Payload,
): SlotLimit[] | typeof INVALID_KEY {
  const held: SlotLimit[] = [];
  if (limits.type !== undefined) held.push({ scope: { kind: 'type' }, limit: limits.type });
  if (limits.perTenant !== undefined)
    held.push({ scope: { kind: 'tenant', tenantId: identity.tenantId }, limit: limits.perTenant });
  if (limits.perKey !== undefined) {
    let key: unknown;
    try {
      key = limits.perKey.key(payload);
    } catch {
      return INVALID_KEY;
    }
    if (typeof key !== 'string' || key.length === 0 || key.length > 256) return INVALID_KEY;
    held.push({ scope: { kind: 'key', tenantId: identity.tenantId, key }, limit: limits.perKey.limit });
  }
  return held;
}

/** The bounded delay after which a waiting job looks again. */
function recheckMsOf(limits: ConcurrencyLimits<unknown>): number {
  return limits.recheckMs ?? DEFAULT_RECHECK_MS;
}

export {
  type ConcurrencyLimits,
  DEFAULT_RECHECK_MS,
  INVALID_KEY,
  type LimitScope,
  limitsOf,
  MAX_RECHECK_MS,
  MAX_SLOTS,
  type PerKeyLimit,
  parseConcurrencyLimits,
  recheckMsOf,
  type SlotLimit,
};
