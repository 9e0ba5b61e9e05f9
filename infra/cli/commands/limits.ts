import * as z from 'zod';
import { readLimits } from '../../../lib/admin/limits.js';
import { type BudgetScope, budgetScopeValue, PROVIDER_NAME } from '../../../lib/flow-control/rate-limits.js';
import { tenantIdSchema } from '../../../lib/identity.js';
import { jobTypeSchema } from '../../../lib/rules.js';
import type { BudgetState, OperatorStore } from '../../../lib/store/index.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { formatTable, type Io, printJson, relativeTime, shortDuration } from '../output.js';
import { commonShape, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'limits',
  summary: COMMAND_SUMMARIES.limits,
  positionals: [{ name: 'jobType', description: 'the job type whose limits to read' }],
  options: {
    tenant: { type: 'string', placeholder: '<tenant>', description: "also read the tenant's per-tenant limit" },
    key: {
      type: 'string',
      placeholder: '<key>',
      description: 'also read the per-key limit of this key (with --tenant)',
    },
    provider: {
      type: 'string',
      placeholder: '<name,...>',
      description:
        "also read these rate budgets (the providers the type declares): shared, the tenant's with --tenant, the key's with --key",
    },
    ...TARGET_OPTIONS,
  },
  examples: [
    'leasefence limits sync-account',
    'leasefence limits sync-account --tenant acme --key acct-7 --json',
    'leasefence limits sync-account --provider stripe,sendgrid --tenant acme',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  jobType: jobTypeSchema,
  tenant: z.optional(tenantIdSchema),
  key: z.optional(z.string().min(1).max(256)),
  provider: z.optional(
    z
      .string()
      .transform((list) => list.split(','))
      .pipe(z.array(z.string().regex(PROVIDER_NAME, 'a provider name: 1-64 chars of [A-Za-z0-9._-]')).max(8)),
  ),
});

/** Which budget a read names: a key's is the tenant's key (`key`) or, declared `acrossTenants`, every tenant's. */
type BudgetScopeName = 'shared' | 'tenant' | 'key' | 'key-across-tenants';

/** One budget row read: its provider and scope, and what it shows now (absent: no take wrote it, a take finds it full). */
type BudgetRead = { provider: string; scope: BudgetScopeName } & Partial<Omit<BudgetState, 'provider'>>;

/** The budgets a query names: shared; the tenant's; the key's within the tenant and across tenants (one is declared). */
function budgetScopes(query: { tenant?: string | undefined; key?: string | undefined }) {
  const scopes: Array<{ name: BudgetScopeName; scope: BudgetScope }> = [{ name: 'shared', scope: { kind: 'shared' } }];
  const { tenant, key } = query;
  if (tenant !== undefined) scopes.push({ name: 'tenant', scope: { kind: 'tenant', tenantId: tenant } });
  if (key !== undefined && tenant !== undefined)
    scopes.push({ name: 'key', scope: { kind: 'key', key, tenantId: tenant } });
  if (key !== undefined) scopes.push({ name: 'key-across-tenants', scope: { kind: 'key', key } });
  return scopes;
}

/** Each named provider's budgets in the scopes the query names: one strongly consistent GetItem each (never a Scan). */
async function readBudgets(
  store: OperatorStore,
  providers: readonly string[],
  query: { tenant?: string | undefined; key?: string | undefined },
): Promise<BudgetRead[]> {
  const reads: BudgetRead[] = [];
  for (const provider of providers) {
    for (const { name, scope } of budgetScopes(query)) {
      const state = await store.budget({ provider, scope: budgetScopeValue(scope) });
      const { provider: _, ...shown } = state ?? { provider };
      reads.push({ provider, scope: name, ...shown });
    }
  }
  return reads;
}

const BUDGET_WAITERS_NOT_READ =
  'jobs waiting on a rate budget: not recorded per budget (a deferred job waits queued; RateLimitDeferred counts them)';

function budgetRows(budgets: readonly BudgetRead[], now: number): string[][] {
  return budgets.map((budget) => [
    `${budget.provider} ${budget.scope}`,
    budget.limit !== undefined ? `${budget.limit}/${shortDuration(budget.intervalMs ?? 0)}` : '-',
    budget.burst !== undefined ? String(budget.burst) : '-',
    budget.tokens !== undefined ? String(budget.tokens) : 'full (no row)',
    budget.nextGrantAt !== undefined ? relativeTime(budget.nextGrantAt, now) : 'now',
    'not recorded',
  ]);
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const report = await readLimits(target.admin, {
      jobType: input.jobType,
      ...(input.tenant !== undefined ? { tenantId: input.tenant } : {}),
      ...(input.key !== undefined ? { key: input.key } : {}),
    });
    const budgets = input.provider ? await readBudgets(target.admin.store, input.provider, input) : undefined;
    if (input.json) {
      printJson(io, budgets ? { ...report, budgets, budgetsNotRead: BUDGET_WAITERS_NOT_READ } : report);
      return 0;
    }
    const now = io.now();
    io.out(
      formatTable(
        ['LIMIT', 'SIZE', 'IN USE', 'PAST LEASE', 'WAITING', 'OLDEST WAIT'],
        report.limits.map((limit) => [
          limit.tenantId !== undefined ? `${limit.scope} ${limit.tenantId}` : limit.scope,
          limit.limit !== undefined ? String(limit.limit) : '-',
          String(limit.inUse),
          String(limit.expired),
          String(limit.waiting),
          relativeTime(limit.oldestWaitingSince, now),
        ]),
      ),
    );
    if (budgets) {
      const header = ['BUDGET', 'RATE', 'BURST', 'TOKENS', 'NEXT GRANT', 'WAITING'];
      io.out(`\n${formatTable(header, budgetRows(budgets, now))}`);
    }
    if (report.notRead) io.out(`\nnot read: ${report.notRead}`);
    if (budgets) io.out(`not read: ${BUDGET_WAITERS_NOT_READ}`);
    return 0;
  });
}

/**
 * `leasefence limits <jobType>`: per concurrency limit, the slots in use and the jobs waiting; with `--provider`, per
 * rate budget its rate, burst, tokens and next grant (jobs waiting on a budget are not recorded: said, never 0).
 */
const limitsCommand: CliCommand = { spec, run };

export { limitsCommand };
