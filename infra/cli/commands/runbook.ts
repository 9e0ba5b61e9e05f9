import * as z from 'zod';
import { type CommandSpec, parseCommandLine } from '../args.js';
import type { CliCommand } from '../command.js';
import { loadJobModule } from '../job-module.js';
import { type Io, printJson } from '../output.js';
import { runbookMarkdown, runbookSection } from '../runbook.js';
import { commonShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

const spec: CommandSpec = {
  name: 'runbook',
  summary: COMMAND_SUMMARIES.runbook,
  positionals: [],
  options: {
    jobs: {
      type: 'string',
      placeholder: '<module>',
      description: 'jobs module (as for check --jobs); default: the example jobs',
    },
    format: { type: 'string', placeholder: 'md', description: 'output format: md (Markdown, the default)' },
  },
  examples: ['leasefence runbook', 'leasefence runbook --jobs ./jobs.ts --format md > RUNBOOK.md'],
};

const schema = z.strictObject({
  ...commonShape,
  jobs: z.string().min(1).optional(),
  format: z.literal('md').default('md'),
});

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const { jobs } = await loadJobModule(input.jobs);
  if (input.json)
    printJson(io, { jobTypes: jobs.map((job) => ({ jobType: job.type, markdown: runbookSection(job) })) });
  else io.out(runbookMarkdown(jobs));
  return 0;
}

/** `leasefence runbook`: one runbook section per job type, generated from the jobs module. */
const runbookCommand: CliCommand = { spec, run };

export { runbookCommand };
