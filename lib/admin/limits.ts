import * as z from 'zod/mini';
import { type BudgetScope, budgetScopeValue, PROVIDER_NAME } from '../flow-control/budget-scope.js';
import type { LimitScope } from '../flow-control/concurrency-limits.js';
import { tenantIdSchema } from '../identity.js';
import { builtOnce } from '../internal/memoize.js';
import { parseInput } from '../internal/validation.js';
import { jobTypeSchema } from '../rules.js';
import type { BudgetState, LimitUsage, OperatorStore } from '../store/index.js';
import { type AdminDeps, adminClock } from './deps.js';

/**
 * Which limits of a job type to read: the type's always, a tenant's with `tenantId`, a key's with both; with
 * `providers`, those rate budgets too (shared, the tenant's, the key's).
 */
interface LimitsQuery {
  jobType: string;
  tenantId?: string;
  key?: string;
  providers?: readonly string[];
}

/** Which budget a read names: a key's is the tenant's key (`key`) or, declared `acrossTenants`, every tenant's. */
type BudgetScopeName = 'shared' | 'tenant' | 'key' | 'key-across-tenants';

/**
 * One budget read: its provider and scope, what its row shows now (absent: no take wrote it, a take finds it full), and
 * the jobs recorded as waiting on it (its waiter items) with the oldest wait's start.
 */
type BudgetRead = { provider: string; scope: BudgetScopeName; waiting: number; oldestWaitingSince?: number } & Partial<
  Omit<BudgetState, 'provider'>
>;

/** Each limit read: its scope (the key itself is not repeated) and what its partition shows now. */
interface LimitsReport {
  at: number;
  jobType: string;
  limits: Array<{ scope: LimitScope['kind']; tenantId?: string } & Omit<LimitUsage, 'partition'>>;
  /** The rate budgets of the providers named, in the scopes the query names. */
  budgets?: BudgetRead[];
  /** What was not read, in words: per-tenant and per-key limits are read only for the tenant (and key) named. */
  notRead?: string;
}

const limitsQuerySchema = builtOnce(() =>
  z
    .strictObject({
      jobType: jobTypeSchema,
      tenantId: z.optional(tenantIdSchema),
      key: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      providers: z.optional(
        z
          .array(z.string().check(z.regex(PROVIDER_NAME, 'a provider name: 1-64 chars of [A-Za-z0-9._-]')))
          .check(z.minLength(1), z.maxLength(8)),
      ),
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
 * limits"), and with `providers` per rate budget its row and the jobs waiting on it: strongly consistent reads of each
 * limit's partition and budget, never a Scan. A limit no slot was ever taken of reads as zero. InvalidInputError for a
 * bad query (a key without a tenant, a bad provider name), nothing read.
 */
async function readLimits(deps: AdminDeps, input: LimitsQuery): Promise<LimitsReport> {
  const query = parseInput(limitsQuerySchema(), input, 'limits query');
  const scopes: LimitScope[] = [{ kind: 'type' }];
  if (query.tenantId !== undefined) scopes.push({ kind: 'tenant', tenantId: query.tenantId });
  if (query.tenantId !== undefined && query.key !== undefined)
    scopes.push({ kind: 'key', tenantId: query.tenantId, key: query.key });
  const limits = [];
  for (const scope of scopes) {
    const { partition: _, ...usage } = await deps.store.limitUsage(query.jobType, scope);
    limits.push({ scope: scope.kind, ...(scope.kind !== 'type' ? { tenantId: scope.tenantId } : {}), ...usage });
  }
  const notRead =
    query.tenantId === undefined
      ? 'per-tenant and per-key limits: name a tenant (and a key) to read them'
      : query.key === undefined
        ? 'per-key limits: name a key to read one'
        : undefined;
  const budgets = query.providers ? await readBudgets(deps.store, query.providers, query) : undefined;
  return {
    at: adminClock(deps).now(),
    jobType: query.jobType,
    limits,
    ...(budgets ? { budgets } : {}),
    ...(notRead ? { notRead } : {}),
  };
}

/** The budgets a query names: shared; the tenant's; the key's within the tenant and across tenants (one is declared). */
function budgetScopes(query: { tenantId?: string | undefined; key?: string | undefined }) {
  const scopes: Array<{ name: BudgetScopeName; scope: BudgetScope }> = [{ name: 'shared', scope: { kind: 'shared' } }];
  const { tenantId, key } = query;
  if (tenantId !== undefined) scopes.push({ name: 'tenant', scope: { kind: 'tenant', tenantId } });
  if (key !== undefined && tenantId !== undefined) scopes.push({ name: 'key', scope: { kind: 'key', key, tenantId } });
  if (key !== undefined) scopes.push({ name: 'key-across-tenants', scope: { kind: 'key', key } });
  return scopes;
}

/**
 * Each named provider's budgets in the scopes the query names: one strongly consistent GetItem of the row and one
 * Query of its waiters each (never a Scan).
 */
async function readBudgets(
  store: OperatorStore,
  providers: readonly string[],
  query: { tenantId?: string | undefined; key?: string | undefined },
): Promise<BudgetRead[]> {
  const reads: BudgetRead[] = [];
  for (const provider of providers) {
    for (const { name, scope } of budgetScopes(query)) {
      const ref = { provider, scope: budgetScopeValue(scope) };
      const state = await store.budget(ref);
      const { provider: _, ...shown } = state ?? { provider };
      reads.push({ provider, scope: name, ...shown, ...(await store.budgetWaiters(ref)) });
    }
  }
  return reads;
}

export { type BudgetRead, type LimitsQuery, type LimitsReport, readLimits };
