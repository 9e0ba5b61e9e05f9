/** Errors of the CLI; main maps them to exit codes (usage 2, everything else 1). */
import { leasefenceError } from '../../lib/errors.js';

/** Exit codes of every command. */
const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;

/** The command line is wrong: the message names the argument. Exit code 2. */
class UsageError extends leasefenceError('cli.usage') {
  constructor(message: string) {
    super(message);
  }
}

/** Nothing to talk to: no local stack running, or AWS resources that cannot be found. Exit code 1. */
class TargetError extends leasefenceError('cli.target') {
  constructor(message: string) {
    super(message);
  }
}

export { ExitCode, TargetError, UsageError };
