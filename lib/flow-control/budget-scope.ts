// Which provider budget a job takes from, apart from the declarations' schemas (rate-limits.ts): the admin function
// reads budgets and their waiters without bundling flow control's zod schemas (test/infra/init-path.test.ts).

/** A provider's name as declarations and queries spell it: 1 to 64 chars of `[A-Za-z0-9._-]`. */
const PROVIDER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Which budget of a provider: the shared one, a tenant's, a tenant's key's, or a key's across tenants (no tenant). */
type BudgetScope =
  | { readonly kind: 'shared' }
  | { readonly kind: 'tenant'; readonly tenantId: string }
  | { readonly kind: 'key'; readonly key: string; readonly tenantId?: string };

/**
 * The scope value a budget row is keyed by (the store hashes it): `shared`, `tenant:<id>`, `tenant-key:<id>␀<key>`
 * (a tenant's key: no other tenant's job reaches it) or `key:<key>` (declared `acrossTenants`), as the worker's take
 * builds it (lib/worker/rate-gate.ts, scopeValueOf, calls this), so an operator's read names the row the worker writes
 * (test/integration/cli/limits.test.ts reads rows a worker wrote).
 */
function budgetScopeValue(scope: BudgetScope): string {
  if (scope.kind === 'shared') return 'shared';
  if (scope.kind === 'tenant') return `tenant:${scope.tenantId}`;
  return scope.tenantId === undefined ? `key:${scope.key}` : `tenant-key:${scope.tenantId}\u0000${scope.key}`;
}

export { type BudgetScope, budgetScopeValue, PROVIDER_NAME };
