import { execFile } from 'node:child_process';
import { PROJECT_ROOT } from './cdk.js';

/** One job type's verdict as `check --stack --json` prints it. */
interface CheckedType {
  jobType: string;
  target: string;
  verdict: string;
  controls: Array<{ id: number; status: string; claimed: boolean; evidence: string }>;
  scenarios: Array<{ id: string; status: string; detail: string }>;
}

/** What `check --stack --json` answered: its exit code and report (undefined when it printed no JSON). */
interface CheckRun {
  exitCode: number;
  report?: {
    passed: boolean;
    jobTypes: CheckedType[];
    cleanup: { rowsBefore: number; deleted: number; rowsAfter: number };
  };
  stderr: string;
}

/** `check --stack <name> --json` arguments; `jobs` is a module path (default: the example jobs). */
function checkArgs(stackName: string, jobs?: string, settle = '90s'): string[] {
  return ['check', '--stack', stackName, '--json', '--settle-timeout', settle, ...(jobs ? ['--jobs', jobs] : [])];
}

/** Runs the project's CLI as a user would (`leasefence …`), in a child process with `env`; never throws on exit codes. */
function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/bin.ts', ...args],
      { cwd: PROJECT_ROOT, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        done({ exitCode: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** `leasefence check --stack … --json` run by runCli, its JSON report parsed (absent when it printed none). */
async function runCheckStack(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CheckRun> {
  const { exitCode, stdout, stderr } = await runCli(args, env);
  const start = stdout.indexOf('{');
  let report: CheckRun['report'];
  try {
    report = start >= 0 ? (JSON.parse(stdout.slice(start)) as CheckRun['report']) : undefined;
  } catch {
    report = undefined;
  }
  return { exitCode, ...(report ? { report } : {}), stderr };
}

/** Each job type's verdict in the run's report, by job type ({} when it printed no report). */
function verdictsOf(run: CheckRun): Record<string, string> {
  return Object.fromEntries((run.report?.jobTypes ?? []).map((type) => [type.jobType, type.verdict]));
}

/** Every control of the run that did not pass, as `<type> <id> <status>: <evidence>` (a failed run's explanation). */
function openControls(run: CheckRun): string[] {
  return (run.report?.jobTypes ?? []).flatMap((type) =>
    type.controls
      .filter((control) => control.status !== 'PASS')
      .map((control) => `${type.jobType} ${control.id} ${control.status}: ${control.evidence}`),
  );
}

export { type CheckedType, type CheckRun, checkArgs, openControls, runCheckStack, runCli, verdictsOf };
