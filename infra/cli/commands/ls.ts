import * as z from 'zod';
import { listParked } from '../../../lib/admin/list.js';
import type { RecordView } from '../../../lib/admin/views.js';
import { tenantIdSchema } from '../../../lib/identity.js';
import { PARKED_STATES, WorkState } from '../../../lib/states.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { listActive } from '../list-active.js';
import { type Io, printJson } from '../output.js';
import { commonShape, durationFlag, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { claimedTable, parkedTable, queuedTable } from '../views.js';

const LISTABLE = [...PARKED_STATES, WorkState.claimed, WorkState.queued] as const;

const spec: CommandSpec = {
  name: 'ls',
  summary: COMMAND_SUMMARIES.ls,
  positionals: [],
  options: {
    state: { type: 'string', placeholder: '<state>', description: `${LISTABLE.join(' | ')} (default unknown)` },
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
    'leasefence ls --state unknown --json | jq ".items[].operationId"',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  state: z.enum(LISTABLE).default(WorkState.unknown),
  tenant: tenantIdSchema.optional(),
  'older-than': durationFlag.optional(),
  limit: integerFlag(1, 100).default(25),
  cursor: z.string().max(8192).optional(),
  all: z.boolean().optional(),
});

type Input = z.infer<typeof schema>;

/** Items parked in `state`, oldest first; with an age bound the listing ends at the first younger item. */
async function parkedPage(input: Input, deps: Parameters<typeof listParked>[0], now: number, cursor?: string) {
  const page = await listParked(deps, {
    state: input.state,
    limit: input.limit,
    ...(input.tenant ? { tenantId: input.tenant } : {}),
    ...(cursor ? { cursor } : {}),
  });
  if (input['older-than'] === undefined) return page;
  const cutoff = now - input['older-than'];
  const old = page.items.filter((item) => typeof item.parkedAt === 'number' && item.parkedAt <= cutoff);
  // The index is ordered by parkedAt: once one item is too young, every later one is too.
  return old.length < page.items.length ? { items: old } : page;
}

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
      const page =
        input.state === WorkState.claimed || input.state === WorkState.queued
          ? await listActive(target.store, {
              state: input.state,
              limit: input.limit,
              now,
              ...(input.tenant ? { tenantId: input.tenant } : {}),
              ...(cursor ? { cursor } : {}),
              ...(input['older-than'] !== undefined ? { olderThanMs: input['older-than'] } : {}),
            })
          : await parkedPage(input, target.admin, now, cursor);
      items.push(...page.items);
      cursor = page.cursor;
    } while (input.all && cursor);
    if (input.json) {
      printJson(io, { state: input.state, items, ...(cursor ? { cursor } : {}) });
      return 0;
    }
    if (items.length === 0) io.out(`no ${input.state} items${input.tenant ? ` for tenant ${input.tenant}` : ''}`);
    else if (input.state === WorkState.claimed) io.out(claimedTable(items, now));
    else if (input.state === WorkState.queued) io.out(queuedTable(items, now));
    else io.out(parkedTable(items, now));
    if (cursor) io.out(`\nmore: leasefence ls ${[...withoutCursor(argv), '--cursor', cursor].join(' ')}   (or --all)`);
    return 0;
  });
}

/** `leasefence ls`: the admin listing (parked indexes) plus claimed/queued items from the deadline index. */
const lsCommand: CliCommand = { spec, run };

export { lsCommand };
