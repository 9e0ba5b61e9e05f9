import * as z from 'zod';
import { countItems } from '../../../lib/admin/counts.js';
import { readSignals } from '../../../lib/admin/signals.js';
import { tenantIdSchema } from '../../../lib/identity.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { formatTable, type Io, printJson, relativeTime } from '../output.js';
import { commonShape, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'counts',
  summary: COMMAND_SUMMARIES.counts,
  positionals: [],
  options: {
    tenant: { type: 'string', placeholder: '<tenant>', description: 'count one tenant (every state)' },
    ...TARGET_OPTIONS,
  },
  examples: ['leasefence counts', 'leasefence counts --tenant acme --json'],
};

const schema = z.strictObject({ ...commonShape, ...targetShape, tenant: z.optional(tenantIdSchema) });

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const counts = await countItems(target.admin, input.tenant !== undefined ? { tenantId: input.tenant } : {});
    const signals = await readSignals(target.admin, counts);
    if (input.json) {
      printJson(io, { ...counts, signals });
      return 0;
    }
    const now = io.now();
    io.out(
      formatTable(
        ['STATE', 'COUNT', 'OLDEST'],
        counts.states.map((entry) =>
          entry.available
            ? [entry.state, `${entry.count}${entry.complete ? '' : '+'}`, relativeTime(entry.oldestAt, now)]
            : [entry.state, 'n/a', entry.reason],
        ),
      ),
    );
    const dlq = counts.deadLetters;
    io.out(`\nDLQ: ${dlq.available ? `${dlq.depth} waiting, ${dlq.inFlight} in flight` : dlq.reason}`);
    io.out('\nsignals');
    for (const signal of signals) {
      const value = signal.available
        ? `${signal.value} ${signal.unit}${signal.detail ? ` (${signal.detail})` : ''}`
        : signal.reason;
      io.out(`  ${signal.label}: ${value}`);
    }
    return 0;
  });
}

/** `leasefence counts`: items per state (never a Scan), DLQ depth and the five signals. */
const countsCommand: CliCommand = { spec, run };

export { countsCommand };
