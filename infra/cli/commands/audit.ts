import * as z from 'zod';
import { listAuditRecords } from '../../../lib/admin/audit.js';
import { showItem } from '../../../lib/admin/show.js';
import { operationIdSchema, tenantIdSchema } from '../../../lib/identity.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { cell, formatTable, type Io, printJson, relativeTime } from '../output.js';
import { commonShape, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'audit',
  summary: COMMAND_SUMMARIES.audit,
  positionals: [
    { name: 'tenant', description: 'tenant id (or tenant/operation): the audit trail of that item', optional: true },
    { name: 'operation', description: 'operation id', optional: true },
  ],
  identityArgument: true,
  options: {
    limit: { type: 'string', placeholder: '<n>', description: 'page size of the audit log, 1-100 (default 25)' },
    cursor: { type: 'string', placeholder: '<cursor>', description: 'continue where the previous page ended' },
    ...TARGET_OPTIONS,
  },
  examples: ['leasefence audit', 'leasefence audit acme/refund-42', 'leasefence audit --limit 100 --json'],
};

const schema = z
  .strictObject({
    ...commonShape,
    ...targetShape,
    tenant: z.optional(tenantIdSchema),
    operation: z.optional(operationIdSchema),
    limit: integerFlag(1, 100).default(25),
    cursor: z.string().max(8192).optional(),
  })
  .refine((input) => (input.tenant === undefined) === (input.operation === undefined), {
    message: 'give both tenant and operation (or tenant/operation), or neither',
    path: ['operation'],
  });

/** When, who, what, why (and the counts of an action on no single item). */
function auditTable(rows: ReadonlyArray<Record<string, unknown>>, now: number): string {
  return formatTable(
    ['WHEN', 'AT (UTC)', 'ACTOR', 'ACTION', 'DETAIL', 'REASON'],
    rows.map((row) => [
      relativeTime(row.at, now),
      typeof row.at === 'number' ? new Date(row.at).toISOString() : '-',
      cell(row.actor),
      cell(row.action),
      row.counts !== undefined ? cell(row.counts) : `${cell(row.from)} ▶ ${cell(row.to)} (fence ${cell(row.fence)})`,
      cell(row.reason),
    ]),
  );
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const now = io.now();
    if (input.tenant !== undefined && input.operation !== undefined) {
      const item = await showItem(target.admin, { tenantId: input.tenant, operationId: input.operation });
      if (input.json) printJson(io, { audit: item.audit });
      else io.out(item.audit.length ? auditTable(item.audit as never, now) : 'no operator actions on this item');
      return 0;
    }
    const page = await listAuditRecords(target.admin, {
      limit: input.limit,
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
    if (input.json) {
      printJson(io, page);
      return 0;
    }
    io.out(page.records.length ? auditTable(page.records, now) : 'no audit records');
    if (page.cursor) io.out(`\nmore: leasefence audit --cursor ${page.cursor}`);
    return 0;
  });
}

/** `leasefence audit`: the audit log (redrive, erase; newest first), or one item's audit trail. */
const auditCommand: CliCommand = { spec, run };

export { auditCommand };
