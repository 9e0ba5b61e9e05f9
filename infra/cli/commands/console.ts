import * as z from 'zod';
import type { ScheduleDeclaration } from '../../../lib/messaging/schedule.js';
import { type ConsoleContext, queueUrlAccount } from '../../console/context.js';
import { startConsoleServer } from '../../console/server.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import type { CliCommand } from '../command.js';
import { withAuditedTarget } from '../command.js';
import { IDENTIFIER_KEY_OPTIONS, identifierKeyShape } from '../identifier-key.js';
import { portFlag } from '../local-options.js';
import type { Io } from '../output.js';
import { commonShape, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import type { CliTarget } from '../target.js';
import { declaredSchedules } from './schedules.js';

/** Default port of this command (one above the local stack's own console, 8790, so both can run). */
const DEFAULT_CONSOLE_PORT = 8791;

const spec: CommandSpec = {
  name: 'console',
  summary: COMMAND_SUMMARIES.console,
  positionals: [],
  options: {
    port: {
      type: 'string',
      placeholder: '<port>',
      description: `port on 127.0.0.1 (default ${DEFAULT_CONSOLE_PORT}; 0 = any free port)`,
    },
    jobs: {
      type: 'string',
      placeholder: '<module>',
      description: 'jobs module exporting `schedules`, for the Schedules page (default: the one the local stack runs)',
    },
    ...TARGET_OPTIONS,
    ...IDENTIFIER_KEY_OPTIONS,
  },
  examples: [
    'leasefence console',
    'leasefence console --stack leasefence-prod --region eu-west-1 --port 8791 --jobs ./src/jobs/module.ts',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  ...targetShape,
  ...identifierKeyShape,
  port: portFlag.optional(),
  jobs: z.string().min(1).optional(),
});

/** The console's view of a CLI target: the same admin deps, named for the banner, and the schedules if known. */
function consoleContext(
  target: CliTarget,
  stack: string | undefined,
  schedules?: readonly ScheduleDeclaration[],
): ConsoleContext {
  return {
    target: {
      kind: target.kind,
      label: target.label,
      jobsTable: target.tables.jobs,
      ...(target.kind === 'aws' ? queueUrlAccount(target.queueUrl) : {}),
      ...(stack ? { stack } : {}),
    },
    admin: target.admin,
    actor: `${target.actor} (console)`,
    ...(schedules ? { schedules } : {}),
  };
}

/** Resolves on the first SIGINT or SIGTERM. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const port = input.port ?? DEFAULT_CONSOLE_PORT;
  return withAuditedTarget(input, io, async (target) => {
    // Without --jobs and outside a local stack the Schedules page says it cannot judge them (never an empty list).
    const schedules = input.jobs || target.local ? await declaredSchedules(input.jobs, target) : undefined;
    const server = await startConsoleServer(consoleContext(target, input.stack, schedules), { port });
    io.out(`leasefence console for ${target.label}: ${server.url}`);
    io.out(`actions are audited as "${target.actor} (console)"; only this machine can reach it. Stop with Ctrl-C.`);
    const signal = await stopSignal();
    io.out(`${signal}: console stopped`);
    await server.stop();
    return 0;
  });
}

/** `leasefence console`: the operator console on 127.0.0.1 against the CLI's target (local stack or AWS). */
const consoleCommand: CliCommand = { spec, run };

export { consoleCommand, consoleContext, DEFAULT_CONSOLE_PORT };
