import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { FenceAbove, raiseFences } from '../../../lib/admin/raise-fences.js';
import { reasonSchema } from '../../../lib/admin/schemas.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { type Io, printJson } from '../output.js';
import { progressBar } from '../progress.js';
import { commonShape, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

/** Work items per admin call (each call writes one audit record and returns a cursor to resume from). */
const CHUNK = 1_000;

const spec: CommandSpec = {
  name: 'raise-fences',
  summary: COMMAND_SUMMARIES['raise-fences'],
  positionals: [],
  options: {
    above: {
      type: 'string',
      placeholder: '<n>',
      description:
        'every fence at or below n becomes n + 1 (n ≥ the highest fence any record may have seen; n ≤ 10^12)',
    },
    reason: { type: 'string', placeholder: '<text>', description: 'why (kept in the audit trail)' },
    cursor: { type: 'string', placeholder: '<cursor>', description: 'resume where an interrupted run stopped' },
    ...TARGET_OPTIONS,
  },
  examples: [
    'leasefence raise-fences --above 100000 --reason "jobs table restored to 09:00 alone (PITR)"',
    'leasefence raise-fences --above 100000 --reason "…" --cursor eyJzIjoi…',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  above: integerFlag(FenceAbove.min, FenceAbove.max),
  reason: reasonSchema,
  cursor: z.string().min(1).optional(),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const described = await target.client.send(new DescribeTableCommand({ TableName: target.tables.jobs }));
    const progress = progressBar(io.isTTY && !input.json, described.Table?.ItemCount ?? 0, 'items checked');
    const totals = { scanned: 0, raised: 0, alreadyAbove: 0, lostRaces: 0, auditIds: [] as string[] };
    let cursor = input.cursor;
    try {
      do {
        const report = await raiseFences(target.admin, {
          above: input.above,
          reason: input.reason,
          actor: target.actor,
          max: CHUNK,
          ...(cursor ? { cursor } : {}),
        });
        totals.scanned += report.scanned;
        totals.raised += report.raised;
        totals.alreadyAbove += report.alreadyAbove;
        totals.lostRaces += report.lostRaces;
        totals.auditIds.push(report.auditId);
        cursor = report.cursor;
        progress.update(totals.scanned);
        // Without a terminal, one line per chunk: the cursor in it resumes an interrupted run.
        if (!io.isTTY && !input.json && cursor)
          io.err(`checked ${totals.scanned} items; resume with --cursor ${cursor}`);
      } while (cursor);
    } finally {
      progress.finish();
    }
    if (input.json) {
      printJson(io, { above: input.above, ...totals, complete: true });
    } else {
      io.out(
        `raised ${totals.raised} fence(s) to ${input.above + 1}; ${totals.alreadyAbove} already above; ${totals.scanned} work items checked`,
      );
      if (totals.lostRaces > 0) io.out(`${totals.lostRaces} kept changing while being raised: run the command again`);
      io.out(`audited as ${target.actor} (${totals.auditIds.length} audit record(s))`);
    }
    return totals.lostRaces > 0 ? 1 : 0;
  });
}

/** `leasefence raise-fences`: after a restore of the jobs table alone, every fence above anything written before. */
const raiseFencesCommand: CliCommand = { spec, run };

export { raiseFencesCommand };
