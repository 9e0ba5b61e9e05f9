import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { createDocumentClient } from '../../../lib/document-client.js';
import { createSqsClient } from '../../../lib/sqs-client.js';
import type { DemoEnvironment, DemoReport } from '../../local/demo-types.js';
import { EXAMPLE_JOBS_SOURCE, loadDemo } from '../../local/jobs-module.js';
import { sharedCounter } from '../../local/shared-metrics.js';
import { startLocalStack } from '../../local/stack.js';
import { localStartCommand } from '../../local/start-hint.js';
import { readLiveStackState, type StackState } from '../../local/state-file.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import type { CliCommand } from '../command.js';
import { formatDemoReport } from '../demo-report.js';
import { UsageError } from '../errors.js';
import { ANY_PORTS } from '../local-options.js';
import { type Io, printJson } from '../output.js';
import { commonShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import { localDir } from '../target.js';

const spec: CommandSpec = {
  name: 'demo',
  summary: COMMAND_SUMMARIES.demo,
  positionals: [],
  options: {
    'local-dir': { type: 'string', placeholder: '<path>', description: 'folder of the local stack (default .local)' },
    tag: { type: 'string', placeholder: '<tag>', description: 'suffix of the demo operation ids (default: random)' },
  },
  examples: ['leasefence demo', 'leasefence demo --json'],
};

const schema = z.strictObject({
  ...commonShape,
  'local-dir': z.string().min(1).optional(),
  tag: z
    .string()
    .regex(/^[a-z0-9]{1,12}$/, 'must be 1-12 lowercase letters or digits')
    .optional(),
});

/** The demo's view of a local stack; its workers count into `metrics` (the stack's shared counters). */
function demoEnvironment(
  state: StackState,
  client: DynamoDBDocumentClient,
  sqs: SQSClient,
  metrics: DemoEnvironment['metrics'],
): DemoEnvironment {
  const examples = state.tables.examples;
  if (examples === undefined)
    throw new UsageError('the demo needs the example jobs: this stack runs another jobs module');
  return {
    dynamodbEndpoint: state.endpoints.dynamodb,
    client,
    sqs,
    queueUrl: state.queues.jobs,
    tables: { ...state.tables, examples },
    engineName: 'dynalite',
    ...(metrics ? { metrics } : {}),
  };
}

/** True when the demo showed what it promises: every operation succeeded with exactly one side effect. */
function demoPassed(report: DemoReport): boolean {
  return (
    report.sideEffectsPerOperation === 1 && report.operations.every((operation) => operation.state === 'succeeded')
  );
}

/** Prints the report (text or JSON) and returns the exit code. */
function printDemo(io: Io, report: DemoReport, json: boolean | undefined): number {
  if (json) printJson(io, report);
  else io.out(formatDemoReport(report));
  return demoPassed(report) ? 0 : 1;
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const options = input.tag ? { runTag: input.tag } : {};
  const dir = localDir(input, io.env);
  const state = await readLiveStackState(dir);
  if (state && state.jobs.source !== EXAMPLE_JOBS_SOURCE) {
    io.err(`the running local stack runs ${state.jobs.source}, not the example jobs the demo needs`);
  }
  if (state && state.jobs.source === EXAMPLE_JOBS_SOURCE) {
    const client = createDocumentClient({ endpoint: state.endpoints.dynamodb });
    const sqs = createSqsClient({ endpoint: state.endpoints.sqs });
    // The demo's stalled workers run here: their counts go to the stack's shared counters when the demo ends.
    const metrics = sharedCounter(dir, { pid: state.pid, startedAt: state.startedAt });
    try {
      const environment = demoEnvironment(state, client, sqs, metrics);
      return printDemo(io, await (await loadDemo())(environment, options), input.json);
    } finally {
      await metrics.flush();
      client.destroy();
      sqs.destroy();
    }
  }
  io.err(
    `no local stack is running: starting an in-memory one for this demo (${localStartCommand()} keeps one running)`,
  );
  const stack = await startLocalStack({
    dir: localDir(input, io.env),
    memory: true,
    ports: ANY_PORTS,
    pollers: 3,
    sweepIntervalMs: 60_000,
    verbose: false,
    writeStateFile: false,
    log: () => {},
  });
  try {
    return printDemo(
      io,
      await (await loadDemo())(demoEnvironment(stack.state, stack.client, stack.sqs, stack.telemetry), options),
      input.json,
    );
  } finally {
    await stack.stop();
  }
}

/** `leasefence demo`: against the running local stack, or an in-memory one started for the occasion. */
const demoCommand: CliCommand = { spec, run };

export { demoCommand, demoEnvironment, printDemo };
