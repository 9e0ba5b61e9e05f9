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
 * against AWS, or an unreadable one ▶ the typed error before `use` runs: nothing is written.
 */
async function withAuditedTarget<T>(
  flags: TargetFlags & IdentifierKeyFlags,
  io: Io,
  use: (target: CliTarget) => Promise<T>,
): Promise<T> {
  return withTarget(flags, io, async (target) => {
    const identifierKey = await loadAuditKey(target, flags);
    return use({ ...target, admin: { ...target.admin, identifierKey } });
  });
}

/**
 * withAuditedTarget when this invocation may write an audit record (`writes`) or --identifier-key-secret was given,
 * else withTarget (no key is read: a command that writes none needs no GetSecretValue).
 */
function withTargetAuditedIf<T>(
  writes: boolean,
  flags: TargetFlags & IdentifierKeyFlags,
  io: Io,
  use: (target: CliTarget) => Promise<T>,
): Promise<T> {
  const audited = writes || flags['identifier-key-secret'] !== undefined;
  return audited ? withAuditedTarget(flags, io, use) : withTarget(flags, io, use);
}

export { type CliCommand, withAuditedTarget, withTarget, withTargetAuditedIf };
