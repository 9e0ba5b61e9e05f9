import * as z from 'zod';
import { type BudgetRead, readLimits } from '../../../lib/admin/limits.js';
import { PROVIDER_NAME } from '../../../lib/flow-control/budget-scope.js';
import { tenantIdSchema } from '../../../lib/identity.js';
import { jobTypeSchema } from '../../../lib/rules.js';
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

function budgetRows(budgets: readonly BudgetRead[], now: number): string[][] {
  return budgets.map((budget) => [
    `${budget.provider} ${budget.scope}`,
    budget.limit !== undefined ? `${budget.limit}/${shortDuration(budget.intervalMs ?? 0)}` : '-',
    budget.burst !== undefined ? String(budget.burst) : '-',
    budget.tokens !== undefined ? String(budget.tokens) : 'full (no row)',
    budget.nextGrantAt !== undefined ? relativeTime(budget.nextGrantAt, now) : 'now',
    String(budget.waiting),
    relativeTime(budget.oldestWaitingSince, now),
  ]);
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const report = await readLimits(target.admin, {
      jobType: input.jobType,
      ...(input.tenant !== undefined ? { tenantId: input.tenant } : {}),
      ...(input.key !== undefined ? { key: input.key } : {}),
      ...(input.provider !== undefined ? { providers: input.provider } : {}),
    });
    const { budgets } = report;
    if (input.json) {
      printJson(io, report);
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
      const header = ['BUDGET', 'RATE', 'BURST', 'TOKENS', 'NEXT GRANT', 'WAITING', 'OLDEST WAIT'];
      io.out(`\n${formatTable(header, budgetRows(budgets, now))}`);
    }
    if (report.notRead) io.out(`\nnot read: ${report.notRead}`);
    return 0;
  });
}

/**
 * `leasefence limits <jobType>`: per concurrency limit, the slots in use and the jobs waiting; with `--provider`, per
 * rate budget its rate, burst, tokens, next grant and the jobs waiting on it.
 */
const limitsCommand: CliCommand = { spec, run };

export { limitsCommand };
