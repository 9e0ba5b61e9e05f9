/** Errors of the CLI; main maps them to exit codes (usage 2, everything else 1). */

/** Exit codes of every command. */
const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;

/** The command line is wrong: the message names the argument. Exit code 2. */
class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Nothing to talk to: no local stack running, or AWS resources that cannot be found. Exit code 1. */
class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

export { ExitCode, TargetError, UsageError };
