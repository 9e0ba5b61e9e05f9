import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { formatIdentity } from '../../../lib/identity.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { jobTypeSchema } from '../../../lib/rules.js';
import { EXAMPLE_JOBS_SOURCE, exampleJobs, loadJobsModule } from '../../local/jobs-module.js';
import { type CommandSpec, parseCommandLine } from '../args.js';
import { closestName } from '../closest-name.js';
import { type CliCommand, withTarget } from '../command.js';
import { UsageError } from '../errors.js';
import { type Io, printJson } from '../output.js';
import { commonShape, identityShape, integerFlag, TARGET_OPTIONS, targetShape } from '../schemas.js';
import { COMMAND_SUMMARIES } from '../summaries.js';
import type { CliTarget } from '../target.js';

const spec: CommandSpec = {
  name: 'enqueue',
  summary: COMMAND_SUMMARIES.enqueue,
  positionals: [],
  options: {
    type: { type: 'string', placeholder: '<job-type>', description: 'job type, e.g. refund-settlement' },
    tenant: { type: 'string', placeholder: '<tenant>', description: 'tenant id' },
    operation: { type: 'string', placeholder: '<operation>', description: 'operation id from business intent' },
    payload: { type: 'string', placeholder: '<json>', description: 'the payload as JSON' },
    'payload-file': { type: 'string', placeholder: '<path>', description: 'read the payload JSON from a file' },
    delay: {
      type: 'string',
      placeholder: '<seconds>',
      description: 'run after 0-900 seconds; the queued row is written first (show, ls and cancel see it at once)',
    },
    confirm: {
      type: 'boolean',
      description: 'write the queued row first and answer created, or replay with the stored state (one write more)',
    },
    'carry-body': {
      type: 'boolean',
      description:
        'send the body in the message, no table write: the worker stores it (it sits in SQS and the DLQ, where erasure cannot reach it; the deployment must accept inline payloads)',
    },
    jobs: {
      type: 'string',
      placeholder: '<module>',
      description:
        'jobs module whose schemas check the payload (default: what the local stack runs, else the examples)',
    },
    ...TARGET_OPTIONS,
  },
  examples: [
    `leasefence enqueue --type refund-settlement --tenant m_4471 --operation refund-r_900 --payload '{"merchantId":"m_4471","amount":70.25,"currency":"EUR"}'`,
    `leasefence enqueue --carry-body --type refund-settlement --tenant m_4471 --operation refund-r_901 --payload '{"merchantId":"m_4471","amount":12.5,"currency":"EUR"}'`,
    `leasefence enqueue --type statement-publication --tenant bank-eu --operation stmt-42-2026-09-13 --payload '{"accountId":"42","date":"2026-09-13","lines":3}'`,
  ],
};

const schema = z
  .strictObject({
    ...commonShape,
    ...targetShape,
    ...identityShape,
    type: jobTypeSchema,
    payload: z.string().optional(),
    'payload-file': z.string().min(1).optional(),
    delay: integerFlag(0, 900).optional(),
    confirm: z.boolean().optional(),
    'carry-body': z.boolean().optional(),
    jobs: z.string().min(1).optional(),
  })
  .refine((input) => (input.payload === undefined) !== (input['payload-file'] === undefined), {
    message: 'give exactly one of --payload or --payload-file',
    path: ['payload'],
  });

/** The payload as JSON, from the flag or the file; bad JSON ▶ UsageError naming the flag. */
async function readPayload(input: z.infer<typeof schema>): Promise<unknown> {
  const flag = input.payload !== undefined ? '--payload' : '--payload-file';
  let text = input.payload;
  if (text === undefined) {
    try {
      text = await readFile(input['payload-file'] as string, 'utf8');
    } catch (error) {
      throw new UsageError(`--payload-file: cannot read ${input['payload-file']}: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${flag}: not JSON (${(error as Error).message})`);
  }
}

/** The job definitions the target runs: --jobs, else the local stack's jobs module, else the example jobs. */
async function targetJobs(input: z.infer<typeof schema>, target: CliTarget) {
  const source = input.jobs ?? target.local?.jobs.source ?? EXAMPLE_JOBS_SOURCE;
  const loaded = source === EXAMPLE_JOBS_SOURCE ? await exampleJobs() : await loadJobsModule(source);
  return loaded.build({ tables: {} });
}

/**
 * Refuses, before anything is sent, a job type the running local stack does not run (with the nearest type it does
 * run as "did you mean"), and a payload its job type's schema rejects. Against AWS the deployed types are not known
 * here: an unknown type is a note.
 */
function checkKnownSchema(
  jobs: Awaited<ReturnType<typeof targetJobs>>,
  jobType: string,
  payload: unknown,
  io: Io,
  target: CliTarget,
) {
  const running = target.local?.jobs.types;
  if (running && !running.includes(jobType)) {
    const near = closestName(jobType, running);
    const hint = near ? `did you mean ${near}? ` : '';
    throw new UsageError(
      `--type: the local stack does not run ${jobType} (nothing sent); ${hint}it runs: ${running.join(', ')}`,
    );
  }
  const known = jobs.find((job) => job.type === jobType);
  if (!known) {
    const near = closestName(
      jobType,
      jobs.map((job) => job.type),
    );
    io.err(`note: ${jobType} is not a job type of the jobs module${near ? ` (did you mean ${near}?)` : ''}`);
    return;
  }
  const parsed = z.safeParse(known.payload, payload);
  if (parsed.success) return;
  const where = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new UsageError(`--payload: does not match ${jobType}'s schema (${where.join('; ')})`);
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const input = parseCommandLine(spec, schema, argv);
  const payload = await readPayload(input);
  return withTarget(input, io, async (target) => {
    const jobs = await targetJobs(input, target);
    checkKnownSchema(jobs, input.type, payload, io, target);
    const sent = await sendJob(
      {
        sqs: target.sqs,
        queueUrl: target.queueUrl,
        payloads: target.payloads,
        delayed: { client: target.client, jobsTable: target.tables.jobs, jobs },
      },
      {
        tenantId: input.tenant,
        operationId: input.operation,
        jobType: input.type,
        payload,
        ...(input.delay !== undefined ? { delaySeconds: input.delay } : {}),
        ...(input.confirm ? { confirm: true } : {}),
        ...(input['carry-body'] ? { carryBody: true } : {}),
      },
    );
    const identity = { tenantId: input.tenant, operationId: input.operation };
    if (input.json) {
      printJson(io, { ...identity, jobType: input.type, ...sent });
      return 0;
    }
    const body =
      sent.payloadStored === 'replay'
        ? 'same body already stored (a replay)'
        : sent.payloadStored === 'carried'
          ? 'body carried in the message: the worker stores it'
          : 'body stored';
    if (sent.row) {
      io.out(
        sent.row.outcome === 'replay'
          ? `replay of ${input.type} ${formatIdentity(identity)}: the row is ${describeStored(sent.row)}; nothing sent`
          : `created ${input.type} ${formatIdentity(identity)}: row queued${input.delay ? `, due in ${input.delay}s` : ''}; wake-up ${sent.row.wake === 'sent' ? `message ${sent.messageId}` : 'deferred to the sweeper'} (${body})`,
      );
      io.out(`follow it: leasefence show ${formatIdentity(identity)}`);
      return 0;
    }
    if (sent.answer === 'replay') {
      const row = sent.stored ? `the row is ${describeStored(sent.stored)}` : 'no row yet';
      io.out(
        `replay of ${input.type} ${formatIdentity(identity)}: ${row}; ${sent.messageId ? `wake-up resent as message ${sent.messageId}` : 'nothing sent'}`,
      );
      io.out(`follow it: leasefence show ${formatIdentity(identity)}`);
      return 0;
    }
    io.out(
      `sent ${input.type} ${formatIdentity(identity)}: message ${sent.messageId}, payload sha-256 ${sent.payloadHash.slice(0, 16)}… (${body})`,
    );
    io.out(`follow it: leasefence show ${formatIdentity(identity)}`);
    return 0;
  });
}

/** A stored row's state and outcome code, as a line shows it (`succeeded (settled)`). */
function describeStored(row: { state: string; outcomeCode?: string; errorCode?: string }): string {
  const code = row.outcomeCode ?? row.errorCode;
  return code ? `${row.state} (${code})` : row.state;
}

/** `leasefence enqueue`: the producer (sendJob) from the command line. */
const enqueueCommand: CliCommand = { spec, run };

export { enqueueCommand };
