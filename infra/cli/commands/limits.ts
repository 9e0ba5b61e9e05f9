import * as z from 'zod';
import { readLimits } from '../../../lib/admin/limits.js';
import { tenantIdSchema } from '../../../lib/identity.js';
import { jobTypeSchema } from '../../../lib/rules.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { formatTable, type Io, printJson, relativeTime } from '../output.js';
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
    ...TARGET_OPTIONS,
  },
  examples: ['leasefence limits sync-account', 'leasefence limits sync-account --tenant acme --key acct-7 --json'],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  jobType: jobTypeSchema,
  tenant: z.optional(tenantIdSchema),
  key: z.optional(z.string().min(1).max(256)),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const report = await readLimits(target.admin, {
      jobType: input.jobType,
      ...(input.tenant !== undefined ? { tenantId: input.tenant } : {}),
      ...(input.key !== undefined ? { key: input.key } : {}),
    });
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
    if (report.notRead) io.out(`\nnot read: ${report.notRead}`);
    return 0;
  });
}

/** `leasefence limits <jobType>`: per concurrency limit, the slots in use and the jobs waiting (never a Scan). */
const limitsCommand: CliCommand = { spec, run };

export { limitsCommand };
