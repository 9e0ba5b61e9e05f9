import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, and how every CLI test runs the bin: its TypeScript source through tsx's loader, in one node process. */
const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const LAUNCHER = ['--import', 'tsx', join(ROOT, 'infra/cli/bin.ts')];

/** How a child runs the CLI: this checkout's TypeScript source through tsx (the default), or a compiled bin. */
interface CliLaunch {
  /** A compiled `bin.js` (an installed-like package, see compiled-package.ts), run by node without a TypeScript loader. */
  bin?: string;
  /** The child's working folder (default: the repository root). */
  cwd?: string;
}

/** The node arguments and working folder of a CLI child. */
function launcher(launch: CliLaunch = {}): { args: string[]; cwd: string } {
  return { args: launch.bin ? [launch.bin] : LAUNCHER, cwd: launch.cwd ?? ROOT };
}

/** Every child a test started; `killAll` ends the ones still alive (afterAll, or a failed test). */
const children = new Set<ChildProcess>();

/** A clean environment: no LEASEFENCE_* leaking in from the developer's shell, no SDK Node-version notice. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LEASEFENCE_')));
  return { ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...extra };
}

/** What a finished CLI run printed and returned. */
interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * A hang detector, not a verdict: a CLI run through tsx on a loaded 2-core machine can take tens of seconds to
 * start; only a run that never ends should fail a test.
 */
const CLI_HANG_MS = 90_000;

/**
 * Runs `leasefence <args>` (the bin, through tsx) to completion; killed and rejected after `timeoutMs`.
 * `closeStdout` closes the reading end of its stdout at once, as `leasefence … | head -0` would.
 */
function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; closeStdout?: boolean; launch?: CliLaunch } = {},
): Promise<CliRun> {
  return new Promise((done, fail) => {
    const { args: node, cwd } = launcher(options.launch);
    const child = spawn(process.execPath, [...node, ...args], { cwd, env: childEnv(options.env) });
    children.add(child);
    if (options.closeStdout) child.stdout.destroy();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(
        new Error(
          `leasefence ${args.join(' ')} did not finish in ${options.timeoutMs ?? CLI_HANG_MS} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? CLI_HANG_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      done({ code, signal, stdout, stderr });
    });
  });
}

/** A long-running `leasefence start` child: its output so far, a way to wait for a line, and to stop it. */
interface StackProcess {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends the signal and resolves with the exit code (SIGKILL after `timeoutMs`, then rejects). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/**
 * Starts `leasefence start <args>` in the background: the bin through node by default, or `npm start -- <args>`
 * (npm ▶ node, as a newcomer runs it) with `via: 'npm'`.
 */
function startStack(
  args: readonly string[],
  env: Record<string, string> = {},
  via: 'node' | 'npm' = 'node',
  launch: CliLaunch = {},
): StackProcess {
  const { args: node, cwd } = launcher(launch);
  const child =
    via === 'npm'
      ? spawn('npm', ['start', '--silent', '--', ...args], { cwd: ROOT, env: childEnv(env) })
      : spawn(process.execPath, [...node, 'start', ...args], { cwd, env: childEnv(env) });
  return watch(child);
}

/** Starts any long-running `leasefence <args>` (e.g. `console`) in the background. */
function startCommand(args: readonly string[], env: Record<string, string> = {}): StackProcess {
  return watch(spawn(process.execPath, [...LAUNCHER, ...args], { cwd: ROOT, env: childEnv(env) }));
}

/** Tracks a child: its output, a way to wait for a line, and to stop it. */
function watch(child: ChildProcess): StackProcess {
  children.add(child);
  let output = '';
  const exited = new Promise<number | null>((done) => {
    child.on('close', (code) => {
      children.delete(child);
      done(code);
    });
  });
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  return {
    child,
    output: () => output,
    waitFor: async (pattern, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`no ${pattern} in the stack output (exit ${child.exitCode}):\n${output}`);
        }
        await new Promise((wait) => setTimeout(wait, 50));
      }
    },
    stop: async (signal = 'SIGINT', timeoutMs = 15_000) => {
      if (child.exitCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Kills every child still running (use in afterAll; a test must never leave a stack behind). */
function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}

/** A fresh local-stack folder in the system temp dir, and how to remove it. */
async function tempLocalDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'leasefence-local-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The state file of the stack running on `dir`. */
async function readState(dir: string): Promise<{
  pid: number;
  endpoints: { dynamodb: string; sqs: string; admin: string; console: string };
  tables: { jobs: string; payloads: string; examples: string };
  queues: { jobs: string; deadLetter: string };
  settings: { deadlineShards: number };
}> {
  return JSON.parse(await readFile(join(dir, 'stack.json'), 'utf8'));
}

/** The state file's contents (endpoints, tables, queues). */
type StackStateFile = Awaited<ReturnType<typeof readState>>;

/** A `start --memory` child on free ports in a fresh folder, ready to serve; `close` stops it and removes the folder. */
async function startMemoryStack(
  extra: readonly string[] = [],
  launch: CliLaunch = {},
): Promise<{
  process: StackProcess;
  dir: string;
  state: StackStateFile;
  /** `--local-dir <dir>`: add to every CLI call aimed at this stack. */
  at: string[];
  close(): Promise<number | null>;
}> {
  const local = await tempLocalDir();
  const stack = startStack(
    [
      '--memory',
      '--local-dir',
      local.dir,
      '--dynamodb-port',
      '0',
      '--sqs-port',
      '0',
      '--admin-port',
      '0',
      '--console-port',
      '0',
      ...extra,
    ],
    {},
    'node',
    launch,
  );
  await stack.waitFor(/Stop with Ctrl-C/);
  return {
    process: stack,
    dir: local.dir,
    state: await readState(local.dir),
    at: ['--local-dir', local.dir],
    close: async () => {
      const code = await stack.stop('SIGINT');
      await local.remove();
      return code;
    },
  };
}

process.on('exit', killAll);

export {
  type CliLaunch,
  type CliRun,
  childEnv,
  killAll,
  ROOT,
  readState,
  runCli,
  type StackProcess,
  type StackStateFile,
  startCommand,
  startMemoryStack,
  startStack,
  tempLocalDir,
};
