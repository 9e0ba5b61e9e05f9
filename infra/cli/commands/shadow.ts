import * as z from 'zod';
import { formatIdentity } from '../../../lib/identity.js';
import { MetricName } from '../../../lib/metric-names.js';
import { ShadowFinding } from '../../../lib/shadow/findings.js';
import { buildShadowReport, type ShadowReport } from '../../../lib/shadow/report.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { type CliCommand, withTarget } from '../command.js';
import { formatTable, type Io, printJson } from '../output.js';
import { commonShape, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'shadow',
  summary: COMMAND_SUMMARIES.shadow,
  positionals: [{ name: 'action', description: "'report': what the existing consumer ran twice, by job type" }],
  options: {
    'max-pages': {
      type: 'string',
      placeholder: '<n>',
      description: 'read at most this many pages of the jobs table (default 1000); fewer ▶ NOT EVALUATED',
    },
    ...TARGET_OPTIONS,
  },
  examples: ['leasefence shadow report', 'leasefence shadow report --stack prod-jobs --json'],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  action: z.literal('report'),
  'max-pages': integerFlag(1, 100_000).default(1_000),
});

/** What each finding means, in the report's words. */
const FINDING_TEXT: Record<ShadowFinding, string> = {
  [ShadowFinding.ranTwice]: 'ran twice (two executions succeeded)',
  [ShadowFinding.concurrent]: 'ran concurrently (overlapping executions)',
  [ShadowFinding.afterCompletion]: 'ran again after a completion (a replay it did not recognise)',
  [ShadowFinding.payloadConflict]: 'let a payload conflict through (same identity, different payload)',
};

function verdictLine(report: ShadowReport): string {
  if (report.verdict === 'findings')
    return `FINDINGS: ${report.doubleRuns} operations the existing mechanism double-ran; leasefence would have prevented each${report.notEvaluated.length ? ' (at least: not everything was evaluated)' : ''}`;
  if (report.verdict === 'not_evaluated') return 'NOT EVALUATED: the shadow rows were not all seen or decided';
  return `NO DOUBLE-RUNS RECORDED among ${report.executions} executions of ${report.operations} operations`;
}

/** The report as text: verdict, the per-job-type table, examples per finding, and what was not evaluated. */
function reportText(report: ShadowReport): string {
  const findings = Object.values(ShadowFinding);
  const lines = [verdictLine(report), ''];
  lines.push(
    formatTable(
      [
        'JOB TYPE',
        'OPERATIONS',
        'EXECUTIONS',
        'DOUBLE-RUNS',
        ...findings.map((f) => f.toUpperCase()),
        'UNDECIDED',
        'FULL LIST',
      ],
      report.jobTypes.map((entry) => [
        entry.jobType,
        String(entry.operations),
        String(entry.executions),
        String(entry.doubleRuns),
        ...findings.map((finding) => String(entry.counts[finding])),
        String(entry.undetermined),
        String(entry.listFull),
      ]),
    ),
  );
  for (const entry of report.jobTypes) {
    for (const finding of findings) {
      const examples = entry.examples[finding];
      if (examples.length === 0) continue;
      lines.push('', `${entry.jobType}: ${entry.counts[finding]} ${FINDING_TEXT[finding]}, e.g.`);
      for (const example of examples) lines.push(`  leasefence show ${formatIdentity(example)}`);
    }
  }
  for (const entry of report.jobTypes) {
    if (entry.notEvaluatedExamples.length === 0) continue;
    lines.push(
      '',
      `${entry.jobType}: not fully seen (${entry.listFull} full lists, ${entry.undetermined} undecided), e.g.`,
    );
    for (const example of entry.notEvaluatedExamples) lines.push(`  leasefence show ${formatIdentity(example)}`);
  }
  for (const gap of report.notEvaluated) lines.push('', `NOT EVALUATED: ${gap}`);
  lines.push(
    '',
    `Executions whose shadow start failed are not in the table: the report is complete only if the metric ${MetricName.ShadowWriteFailed} stayed 0.`,
  );
  return lines.join('\n');
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  return withTarget(input, io, async (target) => {
    const report = buildShadowReport(await target.store.shadow.readAll(input['max-pages']));
    if (input.json) printJson(io, report);
    else io.out(reportText(report));
    return report.verdict === 'none_recorded' ? 0 : 1;
  });
}

/** `leasefence shadow report`: the double-runs an existing consumer let through, from the shadow rows. */
const shadowCommand: CliCommand = { spec, run };

export { shadowCommand };
