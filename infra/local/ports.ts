import { PortInUseError } from './errors.js';

/** One port the stack listens on: the number, and the flag and variable that change it (named in errors). */
interface PortSetting {
  port: number;
  flag: string;
  environmentVariable: string;
}

/** Default ports of the local stack, and where each can be overridden. 0 means "any free port". */
const LocalPorts = {
  dynamodb: { port: 8000, flag: '--dynamodb-port', environmentVariable: 'LEASEFENCE_DYNAMODB_PORT' },
  sqs: { port: 9324, flag: '--sqs-port', environmentVariable: 'LEASEFENCE_SQS_PORT' },
  admin: { port: 8787, flag: '--admin-port', environmentVariable: 'LEASEFENCE_ADMIN_PORT' },
  console: { port: 8790, flag: '--console-port', environmentVariable: 'LEASEFENCE_CONSOLE_PORT' },
} as const satisfies Record<string, PortSetting>;

/** True for the error Node raises when a listening port is taken. */
function isAddressInUse(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 'EADDRINUSE';
}

/** Runs `listen`; a taken port becomes a PortInUseError naming the flag and variable that change it. */
async function listenOn<T>(setting: PortSetting, listen: (port: number) => Promise<T>): Promise<T> {
  try {
    return await listen(setting.port);
  } catch (error) {
    if (isAddressInUse(error)) throw new PortInUseError(setting.port, setting.flag, setting.environmentVariable);
    throw error;
  }
}

export { isAddressInUse, LocalPorts, listenOn, type PortSetting };
