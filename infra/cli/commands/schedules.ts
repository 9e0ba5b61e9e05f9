import * as z from 'zod';
import { isLeasefenceError } from '../../../lib/errors.js';
import type { ScheduleDeclaration } from '../../../lib/messaging/schedule.js';
import { type ScheduleReport, scheduleReports } from '../../../lib/messaging/schedule-report.js';
import { DEFAULT_LOOKBACK_TICKS } from '../../../lib/messaging/schedule-status.js';
import { EXAMPLE_JOBS_SOURCE, exampleJobs, JobsModuleError, loadJobsModule } from '../../local/jobs-module.js';
import { schedulesOf } from '../../local/schedules-module.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { UsageError } from '../errors.js';
import { formatTable, type Io, printJson, relativeTime } from '../output.js';
import { commonShape, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import type { CliTarget } from '../target.js';

const spec: CommandSpec = {
  name: 'schedules',
  summary: COMMAND_SUMMARIES.schedules,
  positionals: [],
  options: {
    jobs: {
      type: 'string',
      placeholder: '<module>',
      description: 'jobs module exporting `schedules` (default: the one the local stack runs)',
    },
    lookback: {
      type: 'string',
      placeholder: '<n>',
      description: `past ticks older than the 15-minute retry window to judge, per schedule (default ${DEFAULT_LOOKBACK_TICKS}, at most 100); the younger ones are always shown`,
    },
    ...TARGET_OPTIONS,
  },
  examples: [
    'leasefence schedules',
    'leasefence schedules --stack Leasefence --jobs ./src/jobs/module.ts --lookback 24 --json',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  jobs: z.string().min(1).optional(),
  lookback: integerFlag(1, 100).optional(),
});

/**
 * The schedules of `--jobs`, else of the jobs module the local stack runs (also `leasefence console`); UsageError
 * when there is neither.
 */
async function declaredSchedules(path: string | undefined, target: CliTarget): Promise<readonly ScheduleDeclaration[]> {
  const source = path ?? target.local?.jobs.source;
  if (!source) throw new UsageError('--jobs: name the jobs module that exports `schedules` (the one your app deploys)');
  try {
    return schedulesOf(source === EXAMPLE_JOBS_SOURCE ? await exampleJobs() : await loadJobsModule(source));
  } catch (error) {
    if (isLeasefenceError(error, JobsModuleError)) throw new UsageError(`--jobs: ${error.message}`);
    throw error;
  }
}

function printReports(io: Io, reports: readonly ScheduleReport[]): void {
  const now = io.now();
  const iso = (time: number | undefined) => (time === undefined ? '-' : new Date(time).toISOString());
  io.out(
    formatTable(
      ['SCHEDULE', 'EXPRESSION', 'NEXT', 'LAST RUN', 'STATE', 'TICKS'],
      reports.map(({ name, expression, timeZone, status, verdictText }) => [
        name,
        `${expression} ${timeZone}`,
        status.next === undefined ? '-' : `${iso(status.next)} (${relativeTime(status.next, now)})`,
        status.lastRun ? `${iso(status.lastRun.scheduledAt)} (${relativeTime(status.lastRun.scheduledAt, now)})` : '-',
        status.lastRun?.state ?? '-',
        verdictText,
      ]),
    ),
  );
  for (const report of reports) {
    for (const note of report.notes) io.out(`  ${report.name} ${iso(note.scheduledAt)}: ${note.text}`);
  }
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const schedules = await declaredSchedules(input.jobs, target);
    const reports = await scheduleReports(
      schedules,
      io.now(),
      (identity) => target.store.get(identity),
      input.lookback,
    );
    const statuses = reports.map((report) => report.status);
    if (input.json) printJson(io, { schedules: statuses });
    else if (schedules.length === 0) io.out('no schedules declared (the jobs module exports no `schedules`)');
    else printReports(io, reports);
    return statuses.some((status) => status.verdict === 'missed') ? 1 : 0;
  });
}

/** `leasefence schedules`: each schedule's next tick, last run and missed ticks, from the occurrence rows. */
const schedulesCommand: CliCommand = { spec, run };

export { declaredSchedules, schedulesCommand };
