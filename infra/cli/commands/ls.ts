import * as z from 'zod';
import { listItems } from '../../../lib/admin/list.js';
import type { RecordView } from '../../../lib/admin/views.js';
import { tenantIdSchema } from '../../../lib/identity.js';
import { isParkedState, PARKED_STATES, WORK_STATES, WorkState } from '../../../lib/states.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { type Io, printJson } from '../output.js';
import { commonShape, durationFlag, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { claimedTable, itemsTable, parkedTable, queuedTable } from '../views.js';

/** States listed across tenants through an index; the others need --tenant (a Query on the tenant, never a Scan). */
const CROSS_TENANT = [...PARKED_STATES, WorkState.claimed, WorkState.queued] as const;

const spec: CommandSpec = {
  name: 'ls',
  summary: COMMAND_SUMMARIES.ls,
  positionals: [],
  options: {
    state: {
      type: 'string',
      placeholder: '<state>',
      description: `${WORK_STATES.join(' | ')} | all (default unknown); ${WorkState.succeeded}, ${WorkState.cancelled} and all need --tenant`,
    },
    tenant: { type: 'string', placeholder: '<tenant>', description: 'only this tenant' },
    'older-than': {
      type: 'string',
      placeholder: '<age>',
      description: 'only items created (parked ones: parked) at least this long ago: 30s, 10m, 2h, 3d',
    },
    limit: { type: 'string', placeholder: '<n>', description: 'page size, 1-100 (default 25)' },
    cursor: { type: 'string', placeholder: '<cursor>', description: 'continue where the previous page ended' },
    all: { type: 'boolean', description: 'follow every page' },
    ...TARGET_OPTIONS,
  },
  examples: [
    'leasefence ls',
    'leasefence ls --state quarantined --tenant acme',
    'leasefence ls --state claimed --older-than 5m',
    'leasefence ls --state succeeded --tenant acme',
    'leasefence ls --state unknown --json | jq ".items[].operationId"',
  ],
};

const baseSchema = z.strictObject({
  ...commonShape,
  ...targetShape,
  state: z.enum([...WORK_STATES, 'all']).default(WorkState.unknown),
  tenant: z.optional(tenantIdSchema),
  'older-than': durationFlag.optional(),
  limit: integerFlag(1, 100).default(25),
  cursor: z.string().max(8192).optional(),
  all: z.boolean().optional(),
});

const schema = baseSchema.refine(
  (input) => input.tenant !== undefined || (CROSS_TENANT as readonly string[]).includes(input.state),
  { message: 'is required with this --state (listing it across tenants would need a Scan)', path: ['tenant'] },
);

/** The arguments of this listing minus its cursor (to print the command for the next page). */
function withoutCursor(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === '--cursor') index += 1;
    else if (!argument.startsWith('--cursor=')) kept.push(argument);
  }
  return kept;
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const now = io.now();
    const items: RecordView[] = [];
    let cursor = input.cursor;
    do {
      const page = await listItems(target.admin, {
        limit: input.limit,
        ...(input.state !== 'all' ? { state: input.state } : {}),
        ...(input.tenant ? { tenantId: input.tenant } : {}),
        ...(cursor ? { cursor } : {}),
        ...(input['older-than'] !== undefined ? { olderThanMs: input['older-than'] } : {}),
      });
      items.push(...page.items);
      cursor = page.cursor;
    } while (input.all && cursor);
    if (input.json) {
      printJson(io, { state: input.state, items, ...(cursor ? { cursor } : {}) });
      return 0;
    }
    if (items.length === 0)
      io.out(
        `no ${input.state === 'all' ? '' : `${input.state} `}items${input.tenant ? ` for tenant ${input.tenant}` : ''}`,
      );
    else if (input.state === WorkState.claimed) io.out(claimedTable(items, now));
    else if (input.state === WorkState.queued) io.out(queuedTable(items, now));
    else if (input.state !== 'all' && isParkedState(input.state)) io.out(parkedTable(items, now));
    else io.out(itemsTable(items, now));
    if (cursor) io.out(`\nmore: leasefence ls ${[...withoutCursor(argv), '--cursor', cursor].join(' ')}   (or --all)`);
    return 0;
  });
}

/** `leasefence ls`: the admin listing, any state (parked and deadline indexes; a Query on the tenant for the rest). */
const lsCommand: CliCommand = { spec, run };

export { lsCommand };
