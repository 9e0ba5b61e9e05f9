import * as z from 'zod';
import { LocalPorts, type PortSetting } from '../local/ports.js';
import { UsageError } from './errors.js';

/** Flags of `start` (and of `demo` when it runs its own in-memory stack). */
const portFlag = z
  .string()
  .regex(/^[0-9]{1,5}$/, 'must be a port number from 0 to 65535 (0 = any free port)')
  .transform(Number)
  .pipe(z.number().int().min(0).max(65_535, 'must be a port number from 0 to 65535'));

/** A port: the flag's value, else its environment variable, else the default. A bad variable ▶ UsageError naming it. */
function resolvePort(setting: PortSetting, flag: number | undefined, env: NodeJS.ProcessEnv): PortSetting {
  if (flag !== undefined) return { ...setting, port: flag };
  const fromEnv = env[setting.environmentVariable];
  if (fromEnv === undefined || fromEnv === '') return setting;
  const parsed = portFlag.safeParse(fromEnv);
  if (!parsed.success) throw new UsageError(`${setting.environmentVariable}: ${parsed.error.issues[0]?.message}`);
  return { ...setting, port: parsed.data };
}

/** All four ports of the stack. */
function resolvePorts(
  flags: { 'dynamodb-port'?: number; 'sqs-port'?: number; 'admin-port'?: number; 'console-port'?: number },
  env: NodeJS.ProcessEnv,
) {
  return {
    dynamodb: resolvePort(LocalPorts.dynamodb, flags['dynamodb-port'], env),
    sqs: resolvePort(LocalPorts.sqs, flags['sqs-port'], env),
    admin: resolvePort(LocalPorts.admin, flags['admin-port'], env),
    console: resolvePort(LocalPorts.console, flags['console-port'], env),
  };
}

/** Ports that are all "any free port" (for a stack embedded in one command). */
const ANY_PORTS = {
  dynamodb: { ...LocalPorts.dynamodb, port: 0 },
  sqs: { ...LocalPorts.sqs, port: 0 },
  admin: { ...LocalPorts.admin, port: 0 },
  console: { ...LocalPorts.console, port: 0 },
};

export { ANY_PORTS, portFlag, resolvePorts };
