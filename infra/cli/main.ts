import { InvalidInputError, isLeasefenceError } from '../../lib/errors.js';
import { helpText, wantsHelp } from './args.js';
import type { CliCommand } from './command.js';
import { ExitCode, UsageError } from './errors.js';
import { runInterruptCleanups } from './interrupt-cleanup.js';
import { nodeVersionWarning } from './node-version.js';
import { type Io, processIo } from './output.js';
import { COMMAND_SUMMARIES, type CommandName } from './summaries.js';
import { packageVersion } from './version.js';

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
  approve: async () => (await import('./commands/approve.js')).approveCommand,
  reject: async () => (await import('./commands/reject.js')).rejectCommand,
  redrive: async () => (await import('./commands/redrive.js')).redriveCommand,
  erase: async () => (await import('./commands/erase.js')).eraseCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  'raise-fences': async () => (await import('./commands/raise-fences.js')).raiseFencesCommand,
  counts: async () => (await import('./commands/counts.js')).countsCommand,
  limits: async () => (await import('./commands/limits.js')).limitsCommand,
  audit: async () => (await import('./commands/audit.js')).auditCommand,
  'audit-pseudonymise': async () => (await import('./commands/audit-pseudonymise.js')).auditPseudonymiseCommand,
  console: async () => (await import('./commands/console.js')).consoleCommand,
  runbook: async () => (await import('./commands/runbook.js')).runbookCommand,
  shadow: async () => (await import('./commands/shadow.js')).shadowCommand,
  schedules: async () => (await import('./commands/schedules.js')).schedulesCommand,
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
    'Commands talk to the local stack (leasefence start) unless AWS flags are given (--stack, or --jobs-table,',
    '--payloads-table, --queue-url and --deadline-shards; --region, --profile). --json prints one JSON document.',
    'Exit codes: 0 ok, 1 failure, 2 usage error. Run leasefence <command> --help for details;',
    'leasefence --version prints the version.',
  ].join('\n');
}

/**
 * Maps an error to its message and exit code: usage and input errors 2, everything else 1. A leasefence error
 * (the library's, the CLI's, the local stack's, recognised by its brand) prints its message alone, any other its name too.
 */
function reportError(io: Io, name: string, error: unknown): number {
  if (isLeasefenceError(error, UsageError)) {
    io.err(`leasefence ${name}: ${error.message}\nrun 'leasefence ${name} --help' for usage`);
    return ExitCode.usage;
  }
  if (isLeasefenceError(error, InvalidInputError)) {
    const issues = error.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    io.err(`leasefence ${name}: ${issues || error.message}`);
    return ExitCode.usage;
  }
  const known = isLeasefenceError(error);
  const message = error instanceof Error ? error.message : String(error);
  io.err(
    `leasefence ${name}: ${known ? message : `failed: ${error instanceof Error ? error.name : 'error'}: ${message}`}`,
  );
  return ExitCode.failure;
}

/**
 * Runs one command line and returns its exit code (0 ok, 1 failure, 2 usage error naming the argument); on a
 * Node.js older than `engines` it first warns on stderr.
 * Never throws; never calls process.exit itself (except a second Ctrl-C during `start`).
 */
async function main(
  argv: readonly string[],
  io: Io = processIo(),
  nodeVersion = process.versions.node,
): Promise<number> {
  const [name, ...rest] = argv;
  const tooOld = nodeVersionWarning(nodeVersion);
  if (tooOld) io.err(tooOld);
  if (name === undefined) {
    io.err(`${generalHelp()}\n\nleasefence: a command is required`);
    return ExitCode.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(generalHelp());
    return ExitCode.ok;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(await packageVersion());
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

/** Commands that run until Ctrl-C and then stop cleanly with their own handlers (exit 0). */
const RUNS_UNTIL_STOPPED: ReadonlySet<string> = new Set<CommandName>(['start', 'console']);

/** What an interruption means for a command's result, where it is more than "it did not finish". */
const INTERRUPTED_RESULT: Partial<Record<CommandName, string>> = {
  check: 'NOT EVALUATED: the scenarios did not finish, so there is no verdict',
};

/**
 * Ctrl-C or SIGTERM during any other command ends it at once, saying so: a result cut short must not look
 * like a quiet success or failure. Cleanups the command registered (interrupt-cleanup.ts) run before the exit. Exit code 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
 */
function exitSayingInterrupted(name: string | undefined): void {
  if (name === undefined || RUNS_UNTIL_STOPPED.has(name)) return;
  const command = isCommandName(name) ? name : undefined;
  for (const [signal, number] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
  ] as const) {
    process.once(signal, () => {
      const meaning = (command && INTERRUPTED_RESULT[command]) ?? 'what it committed before the signal stays';
      process.stderr.write(`leasefence ${name}: interrupted by ${signal} before it finished; ${meaning}\n`);
      // What the command registered to undo (check --stack: the rows it made) runs first, bounded.
      void runInterruptCleanups().finally(() => process.exit(128 + number));
    });
  }
}

/** The process entry: runs `main`, sets the exit code, and makes sure a stray socket cannot keep the CLI alive. */
async function runCli(argv: readonly string[]): Promise<void> {
  // The SDK's notice about the Node.js versions its future releases support is noise for a CLI user.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  exitQuietlyOnClosedOutput();
  exitSayingInterrupted(argv[0]);
  const code = await main(argv);
  process.exitCode = code;
  setTimeout(() => process.exit(code), 3_000).unref();
}

export { COMMAND_LOADERS, main, runCli };
