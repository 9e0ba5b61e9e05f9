import { resolve } from 'node:path';
import * as z from 'zod';
import { EXAMPLE_JOBS_SOURCE } from '../../local/jobs-module.js';
import { localStartCommand } from '../../local/start-hint.js';
import { readLiveStackState } from '../../local/state-file.js';
import { localPlanDoor, secretPlanDoor } from '../../testing/fault-plan-doors.js';
import {
  StackCheck,
  type StackCheckCleanupReport,
  type StackCheckReport,
  type StackUnderCheck,
} from '../../testing/stack-check.js';
import type { StackControlResult } from '../../testing/stack-check-controls.js';
import type { FaultPlanDoor } from '../../testing/stack-probe.js';
import { DEFAULT_TIMING } from '../../testing/stack-probe.js';
import type { OptionSpec } from '../args.js';
import { readStackOutputs } from '../cloudformation.js';
import { TargetError, UsageError } from '../errors.js';
import { onInterrupt } from '../interrupt-cleanup.js';
import { loadJobModule } from '../job-module.js';
import { type Io, printJson } from '../output.js';
import { durationFlag, targetShape } from '../schemas.js';
import { type CliTarget, localDir, openTarget } from '../target.js';

/** `--stack local` names the stack `npm start` runs (its state file); anything else is a CloudFormation stack. */
const LOCAL_STACK = 'local';

/** Environments a stack check may inject test traffic into without --allow-production. */
const TEST_ENVIRONMENTS: readonly string[] = ['test', 'staging'];

/** The flags `check` takes for a run through a running stack (check.ts merges them into its spec). */
const STACK_OPTIONS: Record<string, OptionSpec> = {
  stack: {
    type: 'string',
    placeholder: '<local|name>',
    description:
      'run the scenarios through a running stack instead of in-process: `local` (leasefence start) or a deployed CloudFormation stack marked test or staging',
  },
  'allow-production': {
    type: 'boolean',
    description: 'with --stack: also inject test traffic into a stack marked production (or not marked at all)',
  },
  'settle-timeout': {
    type: 'string',
    placeholder: '<duration>',
    description: "with --stack: longest wait for the stack's worker per message (default 60s)",
  },
  'local-dir': {
    type: 'string',
    placeholder: '<path>',
    description: 'with --stack local: folder of the local stack (default .local)',
  },
  region: {
    type: 'string',
    placeholder: '<region>',
    description: 'with --stack <name>: AWS region (default AWS_REGION)',
  },
  profile: { type: 'string', placeholder: '<profile>', description: 'with --stack <name>: AWS credentials profile' },
};

/** The validated fields of those flags (check.ts adds them to its schema). */
const stackShape = {
  stack: targetShape.stack,
  'allow-production': z.boolean().optional(),
  'settle-timeout': durationFlag.optional(),
  'local-dir': targetShape['local-dir'],
  region: targetShape.region,
  profile: targetShape.profile,
};

/** Flags that only mean something with --stack. */
const STACK_ONLY = ['allow-production', 'settle-timeout', 'local-dir', 'region', 'profile'] as const;

type StackFlags = { [K in keyof typeof stackShape]?: z.output<(typeof stackShape)[K]> } & {
  jobs?: string | undefined;
  json?: boolean | undefined;
};

/** A stack-only flag given without --stack, or --stack with a flag of the in-process run ▶ UsageError. */
function checkFlagCombination(input: StackFlags & { inventory?: boolean; 'dynamodb-endpoint'?: string }): void {
  if (input.stack === undefined) {
    const stray = STACK_ONLY.find((flag) => input[flag] !== undefined);
    if (stray) throw new UsageError(`--${stray}: only with --stack <local|name>`);
    return;
  }
  if (input.inventory) throw new UsageError('--inventory: runs nothing, so it takes no --stack');
  if (input['dynamodb-endpoint'])
    throw new UsageError('--dynamodb-endpoint: the stack brings its own engines (drop one of them)');
  if (input.stack === LOCAL_STACK && (input.region || input.profile)) {
    throw new UsageError(`--${input.region ? 'region' : 'profile'}: only with a deployed stack, not --stack local`);
  }
  if (input.stack !== LOCAL_STACK && input['local-dir']) throw new UsageError('--local-dir: only with --stack local');
}

/** The stack resolved, its environment, and the jobs module to check it with, before anything is sent. */
interface ResolvedStack {
  readonly target: CliTarget;
  readonly environment: string;
  readonly jobs: string | undefined;
  /** Where the run's fault plan goes; absent when the stack has fault injection off (or --allow-production). */
  readonly faults?: FaultPlanDoor;
  /** The examples table's name in a deployed stack (its ExamplesTableName output), for the example jobs' module. */
  readonly examplesTable?: string;
}

/** The local stack from its state file (it counts as a test environment) and the jobs module it runs. */
async function resolveLocal(flags: StackFlags, io: Io): Promise<ResolvedStack> {
  const dir = localDir(flags, io.env);
  const state = await readLiveStackState(dir);
  if (!state)
    throw new TargetError(
      `--stack local: no local stack is running (no live ${dir}/stack.json); start one with \`${localStartCommand()}\``,
    );
  const runs = state.jobs.source === EXAMPLE_JOBS_SOURCE ? undefined : state.jobs.source;
  if (flags.jobs !== undefined && resolve(flags.jobs) !== runs) {
    throw new UsageError(
      `--jobs: the local stack runs ${runs ?? 'the example jobs'}; check it with the module it runs (omit --jobs)`,
    );
  }
  const target = await openTarget({ 'local-dir': dir }, io.env);
  return {
    target,
    environment: 'test',
    jobs: runs,
    ...(state.faultPlan ? { faults: localPlanDoor(state.faultPlan) } : {}),
  };
}

/** A deployed stack: its outputs (and `Environment`) read first; refused before any client is opened when not a test one. */
async function resolveDeployed(name: string, flags: StackFlags, io: Io): Promise<ResolvedStack> {
  if (flags.profile) io.env.AWS_PROFILE = flags.profile;
  const outputs = await readStackOutputs(name, flags.region ?? io.env.AWS_REGION);
  const environment = outputs.environment ?? 'unmarked';
  refuseProduction(`stack ${name}`, environment, flags);
  const target = await openTarget({ stack: name, region: flags.region, profile: flags.profile }, io.env);
  // Faults only where the stack is marked for tests: --allow-production runs the fault-free scenarios only.
  const faulted = outputs.faultPlanSecretArn !== undefined && TEST_ENVIRONMENTS.includes(environment);
  const region = flags.region ?? io.env.AWS_REGION;
  const faults =
    faulted && outputs.faultPlanSecretArn ? await secretPlanDoor(outputs.faultPlanSecretArn, region) : undefined;
  const examples = outputs.examplesTable ? { examplesTable: outputs.examplesTable } : {};
  return { target, environment, jobs: flags.jobs, ...(faults ? { faults } : {}), ...examples };
}

/**
 * The jobs module the check runs, its tables under the stack's names: the example jobs (no --jobs) declare one
 * table, which a deployed project stack names in its ExamplesTableName output; a stack without that output, or a
 * user's module, keeps the declared names. An example module declaring more than one table ▶ UsageError (which one
 * the output names would be a guess).
 */
async function moduleFor(resolved: ResolvedStack) {
  const declared = resolved.jobs === undefined && resolved.examplesTable ? await loadJobModule(undefined) : undefined;
  if (!declared || !resolved.examplesTable) return loadJobModule(resolved.jobs);
  const names = (declared.tables ?? []).map((table) => String(table.TableName));
  if (names.length !== 1 || names[0] === undefined) {
    throw new UsageError(
      `--stack: the example jobs declare ${names.length} tables; the stack's ExamplesTableName names one`,
    );
  }
  return loadJobModule(undefined, { [names[0]]: resolved.examplesTable });
}

/** A stack not marked test or staging ▶ UsageError (nothing sent) unless --allow-production. */
function refuseProduction(label: string, environment: string, flags: StackFlags): void {
  if (TEST_ENVIRONMENTS.includes(environment) || flags['allow-production']) return;
  const marked =
    environment === 'unmarked'
      ? 'is not marked as a test or staging environment (no Environment output)'
      : `is marked ${environment}`;
  throw new UsageError(
    `--stack: ${label} ${marked}: check injects test traffic into its queue and tables, so it runs only against test or staging stacks (the construct's environment prop); nothing was sent. Add --allow-production to run it anyway`,
  );
}

function stackUnderCheck(resolved: ResolvedStack): StackUnderCheck {
  const { label, client, sqs, store, payloads, admin, tables, queueUrl } = resolved.target;
  const faults = resolved.faults ? { faults: resolved.faults } : {};
  return { label, client, sqs, store, payloads, admin, tables, queueUrl, ...faults };
}

/** `1, 2, 7`. */
const ids = (controls: readonly StackControlResult[]) => controls.map((control) => control.id).join(', ');

function printReport(io: Io, report: StackCheckReport): void {
  const claimed = report.controls.filter((control) => control.claimed);
  const failed = report.controls.filter((control) => control.status === 'FAIL');
  const open = report.controls.filter((control) => !control.claimed && control.status === 'NOT EVALUATED');
  const scope =
    claimed.length === report.controls.length
      ? "on all nine controls, faults injected inside the stack's worker"
      : `on controls ${ids(claimed)}${open.length ? ` (${ids(open)} NOT EVALUATED through a stack)` : ''}`;
  const suffix = failed.length ? ` (failed: ${ids(failed)})` : '';
  io.out(`\n${report.jobType}  class ${report.target}  ▶ ${report.verdict} ${scope}${suffix}`);
  io.out(`  scenarios: ${report.scenarios.map((scenario) => `${scenario.id} ${scenario.status}`).join(', ')}`);
  for (const scenario of report.scenarios.filter((result) => result.status !== 'passed')) {
    io.out(`  ${scenario.id}: ${scenario.detail}`);
  }
  for (const control of report.controls) {
    io.out(
      `  ${String(control.id).padStart(2)} ${control.status.padEnd(4)}  ${control.control}${control.claimed ? '' : ' (not claimed through a stack)'}`,
    );
    io.out(`           ${control.evidence}`);
    if (control.remedy && control.status !== 'PASS') io.out(`           remedy: ${control.remedy}`);
  }
}

function cleanupLine(cleanup: StackCheckCleanupReport, runId: string): string {
  const left = cleanup.leftClaimed > 0 ? `; ${cleanup.leftClaimed} still claimed by a worker, left in place` : '';
  return `cleanup: ${cleanup.rowsBefore} row(s) the check made (tenants lfcheck-${runId}-*, and its messages' quarantine records), ${cleanup.deleted} deleted, ${cleanup.rowsAfter} left${left}`;
}

function printText(
  io: Io,
  resolved: ResolvedStack,
  reports: readonly StackCheckReport[],
  cleanup: StackCheckCleanupReport,
  runId: string,
): void {
  const intro = `go/no-go through ${resolved.target.label} (environment ${resolved.environment}): messages into its queue, its own worker, effects read back from its tables. `;
  if (resolved.faults) {
    io.out(
      `${intro}Fault injection is on (plan in the stack's ${resolved.faults.label}): the faults run inside its worker, for this run's tenants only; all nine controls are judged`,
    );
  } else {
    io.out(
      `${intro}Fault injection is off for this stack: only what a running stack can show is claimed; the controls that need faults are NOT EVALUATED here (turn on the construct's faultInjection prop on a test or staging stack, or run \`leasefence check\`)`,
    );
  }
  for (const report of reports) printReport(io, report);
  io.out(`\n${cleanupLine(cleanup, runId)}`);
  const wanted = resolved.faults ? 'GO' : 'PASS';
  const notGo = reports
    .filter((report) => report.verdict !== wanted)
    .map((report) => `${report.jobType} ${report.verdict}`);
  const allWell = resolved.faults
    ? 'all GO: every control passed through the stack, with its faults injected'
    : 'all PASS on the controls a stack can show (not a GO: it needs fault injection)';
  io.out(`${reports.length} job type(s): ${notGo.length ? notGo.join(', ') : allWell}`);
  if (!resolved.faults) {
    io.out(
      'Without fault injection a stack check never says GO: PASS covers its claimed controls only; it is not a production-readiness review.',
    );
  }
}

/**
 * `leasefence check --stack <local|name>`: resolves the stack (refusing one not marked test or staging unless
 * --allow-production, before anything is sent), runs the stack scenarios, deletes the rows it made (also on
 * Ctrl-C), prints the reports. Exit 0 when every job type is PASS and nothing was left behind, else 1; 2 on usage.
 */
async function checkThroughStack(flags: StackFlags & { stack: string }, io: Io): Promise<number> {
  const resolved =
    flags.stack === LOCAL_STACK ? await resolveLocal(flags, io) : await resolveDeployed(flags.stack, flags, io);
  try {
    const module = await moduleFor(resolved);
    const settle = flags['settle-timeout'];
    const timing = settle !== undefined ? { ...DEFAULT_TIMING, settleMs: settle } : DEFAULT_TIMING;
    const check = new StackCheck(stackUnderCheck(resolved), timing);
    let interrupted = false;
    const forget = onInterrupt(async () => {
      interrupted = true;
      io.err(cleanupLine(await check.cleanup(), check.probe.runId));
    });
    // Unregistered only once the cleanup finished: a Ctrl-C during it waits for the same cleanup.
    let reports: StackCheckReport[];
    let cleanup: StackCheckCleanupReport;
    try {
      reports = await check.run(module);
    } finally {
      cleanup = await check.cleanup();
      forget();
    }
    if (interrupted) {
      // Reports of a run cut short are not printed: a job type finished before the signal is no verdict of the run.
      if (flags.json) printJson(io, { passed: false, interrupted: true, cleanup });
      else io.out(`interrupted: NOT EVALUATED, no verdict\n${cleanupLine(cleanup, check.probe.runId)}`);
      return 1;
    }
    const passed = reports.every((report) => report.verdict === (resolved.faults ? 'GO' : 'PASS'));
    if (flags.json) {
      const stack = { label: resolved.target.label, environment: resolved.environment, runId: check.probe.runId };
      printJson(io, { passed, stack, jobTypes: reports, cleanup });
    } else printText(io, resolved, reports, cleanup, check.probe.runId);
    return passed && cleanup.rowsAfter === 0 ? 0 : 1;
  } finally {
    resolved.target.close();
  }
}

export { checkFlagCombination, checkThroughStack, STACK_OPTIONS, stackShape };
