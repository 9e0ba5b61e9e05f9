import type { CommandSpec } from './args.js';
import { type IdentifierKeyFlags, loadAuditKey } from './identifier-key.js';
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

/**
 * withTarget for a command that writes audit records: the deployment's identifier key is loaded first
 * (infra/cli/identifier-key.ts) and set on the admin deps, so its pseudonyms match the admin function's. No key
 * against AWS, or an unreadable one ▶ the typed error before `use` runs: nothing is written. `writes` false (this
 * invocation writes no audit record) skips the key unless --identifier-key-secret was given.
 */
async function withAuditedTarget<T>(
  flags: TargetFlags & IdentifierKeyFlags,
  io: Io,
  use: (target: CliTarget) => Promise<T>,
  writes = true,
): Promise<T> {
  if (!writes && flags['identifier-key-secret'] === undefined) return withTarget(flags, io, use);
  return withTarget(flags, io, async (target) => {
    const identifierKey = await loadAuditKey(target, flags);
    return use({ ...target, admin: { ...target.admin, identifierKey } });
  });
}

export { type CliCommand, withAuditedTarget, withTarget };
