import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { FenceAbove, raiseFences } from '../../../lib/admin/raise-fences.js';
import { reasonSchema } from '../../../lib/admin/schemas.js';
import { MAX_FENCE_EPOCH } from '../../../lib/store/index.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withAuditedTarget } from '../command.js';
import { IDENTIFIER_KEY_OPTIONS, identifierKeyShape } from '../identifier-key.js';
import { loadJobModule } from '../job-module.js';
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
    jobs: {
      type: 'string',
      placeholder: '<file>',
      description:
        'jobs module (as for start --jobs): the floor is the highest writer_epoch in the recordTables its job types declare',
    },
    above: {
      type: 'string',
      placeholder: '<n>',
      description: 'also clear fence n, at most 10^12 (a record outside the declared tables may have seen it)',
    },
    'above-epoch': {
      type: 'string',
      placeholder: '<e>',
      description: 'also clear every fence of epoch e (restored to before an earlier raise: the epoch its audit names)',
    },
    reason: { type: 'string', placeholder: '<text>', description: 'why (kept in the audit trail)' },
    epoch: { type: 'string', placeholder: '<e>', description: 'resume: the epoch an interrupted run printed' },
    cursor: { type: 'string', placeholder: '<cursor>', description: 'resume where an interrupted run stopped' },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: [
    'leasefence raise-fences --jobs ./src/jobs.ts --reason "jobs table restored to 09:00 (PITR)" --stack prod',
    'leasefence raise-fences --reason "…" --epoch 2 --cursor eyJzIjoi…',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  jobs: z.string().min(1).optional(),
  above: integerFlag(FenceAbove.min, FenceAbove.max).optional(),
  'above-epoch': integerFlag(0, MAX_FENCE_EPOCH).optional(),
  reason: reasonSchema,
  epoch: integerFlag(1, MAX_FENCE_EPOCH).optional(),
  cursor: z.string().min(1).optional(),
});

/** The record tables the job types of `--jobs` declare (none without `--jobs`). */
async function declaredRecordTables(path: string | undefined): Promise<string[]> {
  if (path === undefined) return [];
  const module = await loadJobModule(path);
  return [...new Set(module.jobs.flatMap((job) => job.recordTables ?? []))];
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const recordTables = await declaredRecordTables(input.jobs);
  return withAuditedTarget(input, io, async (target) => {
    const described = await target.client.send(new DescribeTableCommand({ TableName: target.tables.jobs }));
    if (input.cursor === undefined && !input.json) {
      io.err(
        recordTables.length > 0
          ? `floor: the highest writer_epoch in ${recordTables.join(', ')}${input.above !== undefined ? ` and --above ${input.above}` : ''}`
          : 'no --jobs: the floor is the stored epoch and --above only (no record table is read)',
      );
    }
    const progress = progressBar(io.isTTY && !input.json, described.Table?.ItemCount ?? 0, 'items checked');
    const deps = { ...target.admin, recordClient: target.client };
    const totals = { scanned: 0, raised: 0, requeued: 0, alreadyAbove: 0, lostRaces: 0, auditIds: [] as string[] };
    // A resumed run names its cursor and epoch (the schema refuses one without the other); a first run its floor.
    let resume: { cursor?: string; epoch?: number } | undefined =
      input.cursor !== undefined || input.epoch !== undefined
        ? {
            ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
            ...(input.epoch !== undefined ? { epoch: input.epoch } : {}),
          }
        : undefined;
    const first = {
      recordTables,
      ...(input.above !== undefined ? { above: input.above } : {}),
      ...(input['above-epoch'] !== undefined ? { aboveEpoch: input['above-epoch'] } : {}),
    };
    let epoch = input.epoch ?? 0;
    let floor: number | undefined;
    try {
      do {
        const report = await raiseFences(deps, {
          reason: input.reason,
          actor: target.actor,
          max: CHUNK,
          ...(resume ?? first),
        });
        epoch = report.epoch;
        floor ??= report.floor;
        totals.scanned += report.scanned;
        totals.raised += report.raised;
        totals.requeued += report.requeued;
        totals.alreadyAbove += report.alreadyAbove;
        totals.lostRaces += report.lostRaces;
        totals.auditIds.push(report.auditId);
        resume = report.cursor ? { cursor: report.cursor, epoch: report.epoch } : undefined;
        progress.update(totals.scanned);
        // Without a terminal, one line per chunk: the epoch and cursor in it resume an interrupted run.
        if (!io.isTTY && !input.json && resume)
          io.err(`checked ${totals.scanned} items; resume with --epoch ${resume.epoch} --cursor ${resume.cursor}`);
      } while (resume);
    } finally {
      progress.finish();
    }
    if (input.json) {
      printJson(io, { epoch, ...(floor !== undefined ? { floor } : {}), ...totals, complete: true });
    } else {
      io.out(
        `fence epoch ${epoch}${floor !== undefined ? ` (above floor ${floor})` : ''}: raised ${totals.raised} fence(s); ${totals.requeued} parked by an equal-epoch refusal queued again; ${totals.alreadyAbove} already in it; ${totals.scanned} work items checked`,
      );
      if (totals.lostRaces > 0) io.out(`${totals.lostRaces} kept changing while being raised: run the command again`);
      io.out(`audited as ${target.actor} (${totals.auditIds.length} audit record(s))`);
    }
    return totals.lostRaces > 0 ? 1 : 0;
  });
}

/** `leasefence raise-fences`: after a restore, a new fence epoch above every fence issued before, on every row. */
const raiseFencesCommand: CliCommand = { spec, run };

export { raiseFencesCommand };
