import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod';
import { createExampleJobs } from '../../../functions/jobs/index.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import type { CliCommand } from '../command.js';
import { type ControlResult, checkControls, type DefinitionLike } from '../controls.js';
import { UsageError } from '../errors.js';
import { type Io, printJson } from '../output.js';
import { commonShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';

/** Repository root (evidence test files are named relative to it). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const spec: CommandSpec = {
  name: 'check',
  summary: COMMAND_SUMMARIES.check,
  positionals: [],
  options: {
    jobs: {
      type: 'string',
      placeholder: '<module>',
      description: 'module exporting `jobs` (default: the example jobs)',
    },
  },
  examples: ['leasefence check', 'leasefence check --jobs ./src/jobs.ts --json'],
};

const schema = z.strictObject({ ...commonShape, jobs: z.string().min(1).optional() });

/** One job type's verdict: GO only when every control passes (no score). */
interface Verdict {
  type: string;
  target: string;
  verdict: 'GO' | 'NO-GO';
  controls: ControlResult[];
}

/** The definitions to check: the module's `jobs` (or default) array, else the example jobs. */
async function loadDefinitions(path: string | undefined): Promise<DefinitionLike[]> {
  if (path === undefined) return createExampleJobs('examples') as unknown as DefinitionLike[];
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--jobs: cannot load ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  const jobs = loaded.jobs ?? loaded.default;
  if (!Array.isArray(jobs) || jobs.some((job) => typeof job !== 'object' || job === null)) {
    throw new UsageError(`--jobs: ${path} must export \`jobs\` (or a default export): an array of job definitions`);
  }
  return jobs as DefinitionLike[];
}

function printVerdict(io: Io, verdict: Verdict): void {
  const failed = verdict.controls.filter((control) => control.status === 'FAIL').map((control) => control.id);
  const suffix = failed.length ? ` (failed: ${failed.join(', ')})` : '';
  io.out(`\n${verdict.type}  class ${verdict.target}  ▶ ${verdict.verdict}${suffix}`);
  for (const control of verdict.controls) {
    const tests = control.tests.map((file) => (existsSync(resolve(ROOT, file)) ? file : `${file} (missing)`));
    io.out(`  ${String(control.id).padStart(2)} ${control.status}  ${control.control}`);
    io.out(`           ${control.evidence}`);
    io.out(`           tests: ${tests.join(', ')}`);
  }
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const definitions = await loadDefinitions(input.jobs);
  if (definitions.length === 0) throw new UsageError('--jobs: the module defines no job types');
  const verdicts: Verdict[] = definitions.map((definition) => {
    const controls = checkControls(definition);
    return {
      type: typeof definition.type === 'string' ? definition.type : '(unnamed)',
      target: typeof definition.target === 'string' ? definition.target : '?',
      verdict: controls.every((control) => control.status === 'PASS') ? 'GO' : 'NO-GO',
      controls,
    };
  });
  const go = verdicts.every((verdict) => verdict.verdict === 'GO');
  if (input.json) printJson(io, { go, jobTypes: verdicts });
  else {
    io.out('go/no-go: nine controls per job type, every one required (a score could hide the one that matters)');
    for (const verdict of verdicts) printVerdict(io, verdict);
    const noGo = verdicts.filter((verdict) => verdict.verdict === 'NO-GO').map((verdict) => verdict.type);
    io.out(`\n${verdicts.length} job type(s): ${noGo.length ? `NO-GO for ${noGo.join(', ')}` : 'all GO'}`);
    io.out(
      'PASS means the known, avoidable causes of duplicate side effects are removed; it is not a production-readiness review.',
    );
  }
  return go ? 0 : 1;
}

/** `leasefence check`: exit 0 when every job type is GO, 1 otherwise. */
const checkCommand: CliCommand = { spec, run };

export { checkCommand };
