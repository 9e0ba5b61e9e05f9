import * as z from 'zod';
import { InvalidInputError, isLeasefenceError } from '../../../lib/errors.js';
import type { JobDefinition } from '../../../lib/job-definition.js';
import { startConformanceEngine } from '../../testing/conformance-engine.js';
import { unfencedPaths } from '../../testing/findings.js';
import type { JobConformanceModule } from '../../testing/module.js';
import { observeProcessClientsFromNow } from '../../testing/process-endpoint.js';
import { type ConformanceReport, runConformance, unevaluatedReport } from '../../testing/run-conformance.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import type { CliCommand } from '../command.js';
import { UsageError } from '../errors.js';
import { loadJobModule } from '../job-module.js';
import { formatTable, type Io, printJson } from '../output.js';
import { commonShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { checkFlagCombination, checkThroughStack, STACK_OPTIONS, stackShape } from './check-stack.js';

const spec: CommandSpec = {
  name: 'check',
  summary: COMMAND_SUMMARIES.check,
  positionals: [],
  options: {
    jobs: {
      type: 'string',
      placeholder: '<module>',
      description:
        'jobs module (as for start --jobs) exporting `conformance` sample payloads, and `schedules` (each gets the duplicate-tick scenario); default: the example jobs',
    },
    inventory: {
      type: 'boolean',
      description: 'only list the job types by target class, reversibility and approval gate (runs nothing)',
    },
    'dynamodb-endpoint': {
      type: 'string',
      placeholder: '<url>',
      description:
        'run on this local DynamoDB (moto, DynamoDB Local) instead of an embedded dynalite; class A needs one (not AWS: requests are observed through a loopback proxy)',
    },
    ...STACK_OPTIONS,
  },
  examples: [
    'leasefence check',
    'leasefence check --jobs ./src/jobs.ts --json',
    'leasefence check --inventory',
    'leasefence check --dynamodb-endpoint http://127.0.0.1:5000',
    'leasefence check --stack local',
    'leasefence check --stack my-staging-stack --jobs ./src/jobs.ts --region eu-west-1',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  jobs: z.string().min(1).optional(),
  inventory: z.boolean().optional(),
  'dynamodb-endpoint': z.url().optional(),
  ...stackShape,
});

/** The seed's first rollout step: job types by side-effect class, irreversible first. */
/** A job type's approval gate as the inventory shows it: always or by predicate, who approves, how long it waits. */
function approvalSummary(
  job: JobDefinition<unknown>,
): { required: 'always' | 'by predicate'; approvers: string; expiresAfterMs: number } | null {
  const policy = job.approval;
  if (policy === undefined) return null;
  return {
    required: 'required' in policy ? 'always' : 'by predicate',
    approvers: policy.approvers ?? 'anyone',
    expiresAfterMs: policy.expiresAfterMs,
  };
}

function approvalCell(approval: ReturnType<typeof approvalSummary>): string {
  if (approval === null) return 'none';
  return `${approval.required}, ${approval.approvers}, expires ${Math.round(approval.expiresAfterMs / 60_000)} min`;
}

function printInventory(io: Io, json: boolean, jobs: ReadonlyArray<JobDefinition<unknown>>): number {
  const order = ['irreversible', 'idempotent', 'reversible', undefined];
  const rows = [...jobs]
    .sort((a, b) => order.indexOf(a.reversibility) - order.indexOf(b.reversibility))
    .map((job) => ({
      type: String(job.type),
      target: String(job.target),
      reversibility: job.reversibility ?? null,
      owner: job.owner ?? null,
      alertRoute: job.alertRoute ?? null,
      approval: approvalSummary(job),
    }));
  if (json) printJson(io, { jobTypes: rows });
  else {
    io.out(
      formatTable(
        ['TYPE', 'CLASS', 'REVERSIBILITY', 'OWNER', 'ALERT ROUTE', 'APPROVAL'],
        rows.map((row) => [
          row.type,
          row.target,
          row.reversibility ?? '(not declared)',
          row.owner ?? '(none)',
          row.alertRoute ?? '(none)',
          approvalCell(row.approval),
        ]),
      ),
    );
  }
  return 0;
}

/** `stale-resume passed`, or `stale-resume passed ×2, failed (sample 3)` over several samples. */
function scenarioLine(report: ConformanceReport): string {
  const byId = new Map<string, Map<string, number[]>>();
  for (const scenario of report.scenarios) {
    const statuses = byId.get(scenario.id) ?? new Map<string, number[]>();
    statuses.set(scenario.status, [...(statuses.get(scenario.status) ?? []), scenario.sample]);
    byId.set(scenario.id, statuses);
  }
  return [...byId]
    .map(([id, statuses]) => {
      if (statuses.size === 1) return `${id} ${[...statuses.keys()][0]}`;
      const parts = [...statuses].map(([status, samples]) => `${status} (sample ${samples.join(', ')})`);
      return `${id} ${parts.join(' / ')}`;
    })
    .join(', ');
}

function printReport(io: Io, report: ConformanceReport): void {
  const failed = report.controls.filter((control) => control.status === 'FAIL').map((control) => control.id);
  const suffix = failed.length ? ` (failed: ${failed.join(', ')})` : '';
  io.out(`\n${report.jobType}  class ${report.target}  ▶ ${report.verdict}${suffix}`);
  if (report.problem) io.out(`  ${report.problem}`);
  if (report.samples > 1) io.out(`  every scenario ran once per sample payload (${report.samples})`);
  if (report.effectCounting) io.out(`  ${report.effectCounting}`);
  io.out(`  scenarios: ${scenarioLine(report)}`);
  for (const path of unfencedPaths(report.unfencedWrites, report.samples <= 1)) io.out(`  unfenced path: ${path}`);
  for (const control of report.controls) {
    io.out(`  ${String(control.id).padStart(2)} ${control.status.padEnd(4)}  ${control.control}`);
    io.out(`           ${control.evidence}`);
    if (control.remedy && control.status !== 'PASS') io.out(`           remedy: ${control.remedy}`);
  }
}

/** Runs the scenarios of every job type on one engine, one job type after the other. */
async function evaluate(module: JobConformanceModule, endpoint: string | undefined): Promise<ConformanceReport[]> {
  const engine = await startConformanceEngine({ endpoint }).catch((error: unknown) => {
    if (error instanceof InvalidInputError) throw new UsageError(`--dynamodb-endpoint: ${error.message}`);
    throw error;
  });
  try {
    const reports: ConformanceReport[] = [];
    for (const job of module.jobs) {
      const samples = module.conformance?.samplePayloads[job.type];
      if (!samples || samples.length === 0) {
        const reason = `not evaluated: no sample payload (export conformance.samplePayloads['${job.type}'])`;
        reports.push(unevaluatedReport(job, reason, false, `export conformance.samplePayloads['${job.type}']`));
        continue;
      }
      try {
        reports.push(
          await runConformance(job, {
            samplePayloads: samples,
            engine,
            tables: module.tables,
            prepare: module.conformance?.prepare?.[job.type],
            successorJobs: module.jobs,
            schedules: module.schedules,
          }),
        );
      } catch (error) {
        if (isLeasefenceError(error, InvalidInputError)) throw new UsageError(`--jobs: ${error.message}`);
        throw error;
      }
    }
    return reports;
  } finally {
    await engine.stop();
  }
}

/** The module's schedules as the report shows them, and those naming a job type the module does not define. */
function scheduleSummary(module: JobConformanceModule) {
  const schedules = module.schedules ?? [];
  const types = new Set(module.jobs.map((job) => String(job.type)));
  return {
    declared: schedules.map((schedule) => ({ name: schedule.name, jobType: schedule.jobType })),
    unmatched: schedules.filter((schedule) => !types.has(schedule.jobType)).map((schedule) => schedule.name),
  };
}

/** One line on the schedules: none (so no duplicate-tick scenario), which ran it, and any no job type runs. */
function printSchedules(io: Io, summary: ReturnType<typeof scheduleSummary>): void {
  if (summary.declared.length === 0) {
    io.out('schedules: none declared (the jobs module exports no `schedules`), so no duplicate-tick scenario');
    return;
  }
  const listed = summary.declared.map((schedule) => `${schedule.name} (${schedule.jobType})`).join(', ');
  io.out(`schedules: ${listed}: each gets the duplicate-tick scenario under its job type`);
  for (const name of summary.unmatched) {
    const jobType = summary.declared.find((schedule) => schedule.name === name)?.jobType;
    io.out(`schedule ${name} ▶ NOT EVALUATED: it enqueues job type ${jobType}, which the jobs module does not define`);
  }
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  checkFlagCombination(input);
  if (input.stack !== undefined) return checkThroughStack({ ...input, stack: input.stack }, io);
  // Before the job module is imported: a client it builds at import time reads the observed endpoint.
  if (!input.inventory) await observeProcessClientsFromNow();
  const module = await loadJobModule(input.jobs);
  if (input.inventory) return printInventory(io, input.json === true, module.jobs);
  const reports = await evaluate(module, input['dynamodb-endpoint']);
  const schedules = scheduleSummary(module);
  // A schedule no job type of the module runs was never ticked here: not seen, so never GO.
  const go = reports.every((report) => report.verdict === 'GO') && schedules.unmatched.length === 0;
  if (input.json) printJson(io, { go, jobTypes: reports, schedules });
  else {
    io.out(
      `go/no-go: nine controls per job type, each derived from fault-injection scenarios run now on ${reports.find((report) => report.engine !== 'none')?.engine ?? 'no engine'} (every one required: a score could hide the one that matters)`,
    );
    printSchedules(io, schedules);
    for (const report of reports) printReport(io, report);
    const notGo = [
      ...reports.filter((report) => report.verdict !== 'GO').map((report) => `${report.jobType} ${report.verdict}`),
      ...schedules.unmatched.map((name) => `schedule ${name} NOT EVALUATED`),
    ];
    io.out(`\n${reports.length} job type(s): ${notGo.length ? notGo.join(', ') : 'all GO'}`);
    io.out(
      'GO means the known, avoidable causes of duplicate side effects were not seen; it is not a production-readiness review.',
    );
  }
  return go ? 0 : 1;
}

/**
 * `leasefence check`: exit 0 when every job type is GO, 1 when any is NO-GO or not evaluated (or a schedule names a
 * job type the module does not define: never ticked, so not seen), 2 on usage errors.
 * With `--stack <local|name>` it runs through a running stack instead (check-stack.ts).
 */
const checkCommand: CliCommand = { spec, run };

export { checkCommand };
