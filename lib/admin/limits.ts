import * as z from 'zod/mini';
import type { LimitScope } from '../flow-control/concurrency-limits.js';
import { tenantIdSchema } from '../identity.js';
import { builtOnce } from '../internal/memoize.js';
import { parseInput } from '../internal/validation.js';
import { jobTypeSchema } from '../rules.js';
import type { LimitUsage } from '../store/index.js';
import { type AdminDeps, adminClock } from './deps.js';

/** Which limits of a job type to read: the type's always, a tenant's with `tenantId`, a key's with both. */
interface LimitsQuery {
  jobType: string;
  tenantId?: string;
  key?: string;
}

/** Each limit read: its scope (the key itself is not repeated) and what its partition shows now. */
interface LimitsReport {
  at: number;
  jobType: string;
  limits: Array<{ scope: LimitScope['kind']; tenantId?: string } & Omit<LimitUsage, 'partition'>>;
  /** What was not read, in words: per-tenant and per-key limits are read only for the tenant (and key) named. */
  notRead?: string;
}

const limitsQuerySchema = builtOnce(() =>
  z
    .strictObject({
      jobType: jobTypeSchema,
      tenantId: z.optional(tenantIdSchema),
      key: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    })
    .check(
      z.refine((query) => query.key === undefined || query.tenantId !== undefined, {
        message: 'a key limit is per tenant: name the tenant too',
        path: ['key'],
      }),
    ),
);

/**
 * Slots in use, held past their lease, and jobs waiting, per concurrency limit of a job type (README, "Concurrency
 * limits"): strongly consistent Queries of each limit's partition, never a Scan. A limit no slot was ever taken of
 * reads as zero. InvalidInputError for a bad query (a key without a tenant included), nothing read.
 */
async function readLimits(deps: AdminDeps, input: LimitsQuery): Promise<LimitsReport> {
  const query = parseInput(limitsQuerySchema(), input, 'limits query');
  const scopes: LimitScope[] = [{ kind: 'type' }];
  if (query.tenantId !== undefined) scopes.push({ kind: 'tenant', tenantId: query.tenantId });
  if (query.tenantId !== undefined && query.key !== undefined)
    scopes.push({ kind: 'key', tenantId: query.tenantId, key: query.key });
  const slots = await deps.store.slots();
  const limits = [];
  for (const scope of scopes) {
    const { partition: _, ...usage } = await slots.usage(slots.partitionOf(query.jobType, scope));
    limits.push({ scope: scope.kind, ...(scope.kind !== 'type' ? { tenantId: scope.tenantId } : {}), ...usage });
  }
  const notRead =
    query.tenantId === undefined
      ? 'per-tenant and per-key limits: name a tenant (and a key) to read them'
      : query.key === undefined
        ? 'per-key limits: name a key to read one'
        : undefined;
  return { at: adminClock(deps).now(), jobType: query.jobType, limits, ...(notRead ? { notRead } : {}) };
}

export { type LimitsQuery, type LimitsReport, readLimits };
