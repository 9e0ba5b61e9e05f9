import type { CommandSpec } from './args.js';
import type { Io } from './output.js';
import type { TargetFlags } from './schemas.js';
import { type CliTarget, openTarget } from './target.js';

/** One CLI command: its declared arguments (for parsing and help) and what it does. Returns the exit code. */
interface CliCommand {
  spec: CommandSpec;
  run(argv: readonly string[], io: Io): Promise<number>;
}

/** Opens the target for one command and always closes its clients, whatever the command does. */
async function withTarget<T>(flags: TargetFlags, io: Io, use: (target: CliTarget) => Promise<T>): Promise<T> {
  const target = await openTarget(flags, io.env);
  try {
    return await use(target);
  } finally {
    target.close();
  }
}

export { type CliCommand, withTarget };
