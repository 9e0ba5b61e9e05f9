import { relative } from 'node:path';
import * as z from 'zod';
import { jobTypeSchema } from '../../../lib/rules.js';
import { EXAMPLE_JOBS_SOURCE, loadDemo, loadJobsModule } from '../../local/jobs-module.js';
import { LocalQueueSettings } from '../../local/resources.js';
import { type RunningLocalStack, startLocalStack } from '../../local/stack.js';
import { DEFAULT_LOCAL_DIR } from '../../local/state-file.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import type { CliCommand } from '../command.js';
import { UsageError } from '../errors.js';
import { CLI_INVOCATION } from '../invocation.js';
import { portFlag, resolvePorts } from '../local-options.js';
import { formatPairs, type Io, printJson } from '../output.js';
import { commonShape, durationFlag, integerFlag } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { localDir } from '../target.js';
import { demoEnvironment, printDemo } from './demo.js';

const spec: CommandSpec = {
  name: 'start',
  summary: COMMAND_SUMMARIES.start,
  positionals: [],
  options: {
    memory: { type: 'boolean', description: 'keep nothing on disk (default: data persists in <local-dir>/dynamodb)' },
    'fault-injection': {
      type: 'boolean',
      description:
        "let `check --stack local` inject faults into the worker for its own lfcheck- tenants (as the construct's faultInjection prop does on a test stack)",
    },
    jobs: {
      type: 'string',
      placeholder: '<module>',
      description:
        'your jobs module (.js, or .ts with tsx installed) exporting `jobs` and optional `tables` (default: the example jobs)',
    },
    demo: { type: 'boolean', description: 'run the built-in demo once the stack is up (example jobs only)' },
    'local-dir': { type: 'string', placeholder: '<path>', description: 'data and state folder (default .local)' },
    'dynamodb-port': {
      type: 'string',
      placeholder: '<port>',
      description: 'DynamoDB port (default 8000, env LEASEFENCE_DYNAMODB_PORT)',
    },
    'sqs-port': {
      type: 'string',
      placeholder: '<port>',
      description: 'SQS port (default 9324, env LEASEFENCE_SQS_PORT)',
    },
    'admin-port': {
      type: 'string',
      placeholder: '<port>',
      description: 'admin API port (default 8787, env LEASEFENCE_ADMIN_PORT)',
    },
    'console-port': {
      type: 'string',
      placeholder: '<port>',
      description: 'operator console port (default 8790, env LEASEFENCE_CONSOLE_PORT)',
    },
    pollers: { type: 'string', placeholder: '<n>', description: 'concurrent queue pollers, 1-32 (default 3)' },
    'sweep-interval': { type: 'string', placeholder: '<age>', description: 'time between sweeps (default 10s)' },
    verbose: {
      type: 'boolean',
      description:
        'print every worker event (identities hashed, as in Lambda logs) and, locally only, the error text a failed attempt recorded',
    },
    'disable-job-type': {
      type: 'string',
      placeholder: '<type,…>',
      description: 'switch job types off: their messages wait queued and run once started without the flag',
    },
  },
  examples: [
    'npm start',
    'npm start -- --demo',
    'npx leasefence start --jobs ./jobs.ts',
    'leasefence start --memory --dynamodb-port 0 --sqs-port 0 --admin-port 0 --console-port 0',
    'leasefence start --disable-job-type refund-settlement',
  ],
};

const schema = z.strictObject({
  ...commonShape,
  memory: z.boolean().optional(),
  'fault-injection': z.boolean().optional(),
  jobs: z.string().min(1).optional(),
  demo: z.boolean().optional(),
  'local-dir': z.string().min(1).optional(),
  'dynamodb-port': portFlag.optional(),
  'sqs-port': portFlag.optional(),
  'admin-port': portFlag.optional(),
  'console-port': portFlag.optional(),
  pollers: integerFlag(1, 32).default(3),
  'sweep-interval': durationFlag.default(10_000),
  verbose: z.boolean().optional(),
  'disable-job-type': z
    .string()
    .transform((list) => list.split(',').map((type) => type.trim()))
    .pipe(z.array(jobTypeSchema).min(1))
    .optional(),
});

/** A sample payload the jobs module declares for `type` (its `conformance.samplePayloads`), if any. */
function samplePayload(exports: Readonly<Record<string, unknown>>, type: string): unknown {
  const conformance = exports.conformance as { samplePayloads?: Record<string, unknown> } | undefined;
  const samples = conformance?.samplePayloads?.[type];
  return Array.isArray(samples) ? samples[0] : undefined;
}

/** Commands to try against this stack, for the job types it runs (the demo only with the example jobs). */
function tryLines(stack: RunningLocalStack, at: string): string[] {
  const { module, definitions } = stack.jobs;
  const examples = module.source === EXAMPLE_JOBS_SOURCE;
  const withSample = definitions.find((job) => samplePayload(module.exports, job.type) !== undefined);
  const type = (withSample ?? definitions[0])?.type ?? '<type>';
  const sample = withSample ? JSON.stringify(samplePayload(module.exports, type)) : '{…}';
  const cli = CLI_INVOCATION;
  return [
    ...(examples ? [`  ${cli} demo${at}`] : []),
    `  ${cli} enqueue --type ${type} --tenant acme --operation try-1 --payload '${sample}'${at}`,
    `  ${cli} show acme/try-1${at}`,
    `  ${cli} ls --state unknown${at}`,
    `  curl -s '${stack.state.endpoints.admin}/items?state=quarantined'`,
  ];
}

/** What dynalite cannot do, and which of the running job types that stops (class A needs transactions). */
function differences(stack: RunningLocalStack): string {
  const classA = stack.jobs.definitions.filter((job) => job.target === 'A').map((job) => job.type);
  const transactions =
    classA.length > 0
      ? `so class A jobs (${classA.join(', ')}) fail with engine_capability_missing`
      : 'which class A jobs need (none of these job types is class A)';
  return `no TTL (dynalite has no UpdateTimeToLive); no TransactWriteItems, ${transactions}`;
}

/** The first thing a newcomer reads: where everything is, what differs from AWS, what to try. */
function banner(stack: RunningLocalStack, input: z.infer<typeof schema>, dir: string): string {
  const { state, resources } = stack;
  const at = dir === DEFAULT_LOCAL_DIR ? '' : ` --local-dir ${dir}`;
  const created = resources.createdTables.length;
  const total = Object.keys(resources.tableNames).length;
  const kept =
    created === 0 ? 'kept from an earlier run' : created === total ? 'created now' : `${created} created now`;
  const data = stack.dataDir
    ? `data in ${shownPath(stack.dataDir)}, kept across restarts (--memory keeps nothing)`
    : 'in memory: nothing is kept';
  const source = state.jobs.source === EXAMPLE_JOBS_SOURCE ? 'the example jobs' : shownPath(state.jobs.source);
  const operatorConsole = state.endpoints.console
    ? `${state.endpoints.console}  operator console (loopback only; actions audited as "local-operator (console)")`
    : `not started: ${stack.consoleProblem ?? 'unknown reason'}`;
  return [
    `leasefence local stack is running (pid ${state.pid}) on embedded engines: no AWS account, no Docker, no Java`,
    formatPairs([
      ['DynamoDB', `${state.endpoints.dynamodb}  dynalite; ${data}`],
      [
        'SQS',
        `${state.endpoints.sqs}  fauxqs; queue ${resources.queueUrl.split('/').pop()}, DLQ after ${LocalQueueSettings.maxReceiveCount} receives; messages live in memory (the sweeper re-signals after a restart)`,
      ],
      [
        'admin API',
        `${state.endpoints.admin}  no IAM locally: the actor is the x-leasefence-actor header, else "local-operator"`,
      ],
      ['console', operatorConsole],
      [
        'worker',
        `runs ${source} (${state.jobs.types.join(', ')}); ${input.pollers} pollers like the Lambda event source: batches of 10, partial batch failures, ${LocalQueueSettings.visibilityTimeoutSeconds} s visibility timeout`,
      ],
      ['sweeper', `every ${input['sweep-interval'] / 1000} s`],
      [
        'log ids',
        'hashed with the fixed development key, which is not secret (a guessed id can be confirmed); a deployment hashes with its own generated key',
      ],
      ...(input['disable-job-type']
        ? [
            [
              'switched off',
              `${input['disable-job-type'].join(', ')}: messages are acknowledged and wait queued; restart without --disable-job-type to run them`,
            ] as [string, string],
          ]
        : []),
      ['tables', `${Object.values(resources.tableNames).join(', ')} (${kept})`],
      ['state file', stack.stateFile ? shownPath(stack.stateFile) : '-'],
      ['differences', differences(stack)],
    ]),
    '',
    'Try, in another terminal:',
    ...tryLines(stack, at),
    'Stop with Ctrl-C.',
  ].join('\n');
}

/** A path as the user would type it: relative to the working directory when it is inside it. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown && !shown.startsWith('..') ? shown : path;
}

/**
 * A repeat signal within this long of the first is the same Ctrl-C arriving twice (a terminal sends SIGINT to the
 * whole foreground group, and `npm start` forwards the one it got), not a request to abandon the shutdown.
 */
const DUPLICATE_SIGNAL_MS = 1_000;

/**
 * Resolves on the first SIGINT/SIGTERM. A repeat within DUPLICATE_SIGNAL_MS is ignored (the shutdown goes on); a
 * later one exits at once (130) without a clean shutdown. `dispose` removes the handlers.
 */
function stopSignal(io: Io): { received: Promise<string>; dispose(): void } {
  let onSignal: (signal: string) => void = () => {};
  const received = new Promise<string>((resolve) => {
    let firstAt: number | undefined;
    onSignal = (signal: string) => {
      if (firstAt === undefined) {
        firstAt = performance.now();
        resolve(signal);
      } else if (performance.now() - firstAt >= DUPLICATE_SIGNAL_MS) {
        io.err(`${signal} again: exiting without a clean shutdown`);
        process.exit(130);
      }
    };
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    received,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  if (input.demo && input.jobs)
    throw new UsageError('--demo runs the example jobs: leave out --jobs, or run your own jobs');
  const jobs = input.jobs ? await loadJobsModule(input.jobs) : undefined;
  const ports = resolvePorts(input, io.env);
  const dir = localDir(input, io.env);
  const stop = stopSignal(io);
  const log = input.json ? io.err : io.out;
  let stack: RunningLocalStack;
  try {
    stack = await startLocalStack({
      dir,
      memory: input.memory === true,
      ports,
      pollers: input.pollers,
      sweepIntervalMs: input['sweep-interval'],
      verbose: input.verbose === true,
      disabledJobTypes: input['disable-job-type'] ?? [],
      writeStateFile: true,
      log,
      faultInjection: input['fault-injection'] === true,
      ...(jobs ? { jobs } : {}),
    });
  } catch (error) {
    stop.dispose();
    throw error;
  }
  if (input.json) printJson(io, stack.state);
  else io.out(banner(stack, input, dir));
  if (input.demo) {
    try {
      const report = await (await loadDemo())(demoEnvironment(stack.state, stack.client, stack.sqs, stack.telemetry));
      log('');
      printDemo({ ...io, out: log }, report, false);
      log('\nthe stack keeps running: try the commands above, Ctrl-C to stop');
    } catch (error) {
      io.err(`the demo failed: ${(error as Error).message}`);
    }
  }
  const signal = await stop.received;
  log(`${signal}: stopping pollers (batches in flight finish), sweeper, admin API and engines…`);
  await stack.stop();
  stop.dispose();
  log('stopped');
  return 0;
}

/** `leasefence start` (= npm start): runs until Ctrl-C, then shuts down cleanly and exits 0. */
const startCommand: CliCommand = { spec, run };

export { startCommand };
