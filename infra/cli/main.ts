import { InvalidInputError, LeasefenceError } from '../../lib/errors.js';
import { EngineNotInstalledError } from '../local/engines.js';
import { PortInUseError, StackAlreadyRunningError } from '../local/errors.js';
import { JobsModuleError } from '../local/jobs-module.js';
import { helpText, wantsHelp } from './args.js';
import type { CliCommand } from './command.js';
import { ExitCode, TargetError, UsageError } from './errors.js';
import { type Io, processIo } from './output.js';
import { COMMAND_SUMMARIES, type CommandName } from './summaries.js';

/** Each command's module, loaded only when that command runs (the help needs none of them). */
const COMMAND_LOADERS: Record<CommandName, () => Promise<CliCommand>> = {
  start: async () => (await import('./commands/start.js')).startCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  enqueue: async () => (await import('./commands/enqueue.js')).enqueueCommand,
  ls: async () => (await import('./commands/ls.js')).lsCommand,
  show: async () => (await import('./commands/show.js')).showCommand,
  resolve: async () => (await import('./commands/resolve.js')).resolveCommand,
  retry: async () => (await import('./commands/retry.js')).retryCommand,
  cancel: async () => (await import('./commands/cancel.js')).cancelCommand,
  redrive: async () => (await import('./commands/redrive.js')).redriveCommand,
  erase: async () => (await import('./commands/erase.js')).eraseCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  'raise-fences': async () => (await import('./commands/raise-fences.js')).raiseFencesCommand,
  counts: async () => (await import('./commands/counts.js')).countsCommand,
  audit: async () => (await import('./commands/audit.js')).auditCommand,
  console: async () => (await import('./commands/console.js')).consoleCommand,
};

/** True for a name of a command. */
function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_LOADERS, name);
}

function generalHelp(): string {
  const names = Object.keys(COMMAND_SUMMARIES) as CommandName[];
  const width = Math.max(...names.map((name) => name.length));
  return [
    'leasefence — fenced background jobs on AWS Lambda, DynamoDB and SQS',
    '',
    'usage: leasefence <command> [arguments] [flags]',
    '',
    'commands:',
    ...names.map((name) => `  ${name.padEnd(width)}  ${COMMAND_SUMMARIES[name]}`),
    '',
    'Commands talk to the local stack (npm start) unless AWS flags are given (--stack, or --jobs-table,',
    '--payloads-table, --queue-url and --deadline-shards; --region, --profile). --json prints one JSON document.',
    'Exit codes: 0 ok, 1 failure, 2 usage error. Run leasefence <command> --help for details.',
  ].join('\n');
}

/** Maps an error to its message and exit code: usage and input errors 2, everything else 1. */
function reportError(io: Io, name: string, error: unknown): number {
  if (error instanceof UsageError) {
    io.err(`leasefence ${name}: ${error.message}\nrun 'leasefence ${name} --help' for usage`);
    return ExitCode.usage;
  }
  if (error instanceof InvalidInputError) {
    const issues = error.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    io.err(`leasefence ${name}: ${issues || error.message}`);
    return ExitCode.usage;
  }
  const known =
    error instanceof TargetError ||
    error instanceof LeasefenceError ||
    error instanceof PortInUseError ||
    error instanceof StackAlreadyRunningError ||
    error instanceof JobsModuleError ||
    error instanceof EngineNotInstalledError;
  const message = error instanceof Error ? error.message : String(error);
  io.err(
    `leasefence ${name}: ${known ? message : `failed: ${error instanceof Error ? error.name : 'error'}: ${message}`}`,
  );
  return ExitCode.failure;
}

/**
 * Runs one command line and returns its exit code (0 ok, 1 failure, 2 usage error naming the argument).
 * Never throws; never calls process.exit itself (except a second Ctrl-C during `start`).
 */
async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(`${generalHelp()}\n\nleasefence: a command is required`);
    return ExitCode.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(generalHelp());
    return ExitCode.ok;
  }
  if (!isCommandName(name)) {
    io.err(`leasefence: unknown command '${name}'; run 'leasefence --help' for the list`);
    return ExitCode.usage;
  }
  try {
    const command = await COMMAND_LOADERS[name]();
    if (wantsHelp(rest)) {
      io.out(helpText(command.spec));
      return ExitCode.ok;
    }
    return await command.run(rest, io);
  } catch (error) {
    return reportError(io, name, error);
  }
}

/**
 * A reader that went away (`leasefence ls | head -3`) closes stdout: the next write fails with EPIPE. That is
 * the reader's choice, not a failure of the command, so the process ends quietly instead of crashing.
 */
function exitQuietlyOnClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      throw error;
    });
  }
}

/** The process entry: runs `main`, sets the exit code, and makes sure a stray socket cannot keep the CLI alive. */
async function runCli(argv: readonly string[]): Promise<void> {
  // Node 20 is supported by the pinned SDK; its notice about releases after January 2027 is noise for a CLI user.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  exitQuietlyOnClosedOutput();
  const code = await main(argv);
  process.exitCode = code;
  setTimeout(() => process.exit(code), 3_000).unref();
}

export { COMMAND_LOADERS, main, runCli };
