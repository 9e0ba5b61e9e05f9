import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';
import { InvalidInputError, isLeasefenceError, PayloadConflictError } from '../errors.js';
import type { Priority } from '../flow-control/priorities.js';
import { canonicalJson, type IdentifierKey, payloadHash } from '../hashing.js';
import { formatIdentity, parseIdentity, type ValidIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { jobTypeSchema, jobVersionSchema, type PayloadBinding, payloadHashSchema, payloadRefSchema } from '../rules.js';
import { FINISHED_STATES, type WorkState } from '../states.js';
import type { PayloadStore, WorkItem } from '../store/index.js';
import { loadOpenTelemetryTracer } from '../tracing/open-telemetry.js';
import { traceMessageAttributes } from '../tracing/trace-context.js';
import { type JobTracer, SpanName } from '../tracing/tracer.js';
import {
  type DelayedJobsConfig,
  jobsStore,
  recordedOutcome,
  requireRowsConfig,
  type ScheduledRow,
  scheduleDelayedJob,
} from './delayed-job.js';
import { type CheckedEnvelope, ENVELOPE_VERSION, encodeEnvelope } from './envelope.js';
import { messageGroupOf } from './message-group.js';
import { SQS_MAX_DELAY_SECONDS } from './wake-envelope.js';

/**
 * Where jobs are sent. `payloads` is required for inline payloads. `delayed` (the jobs table and the job
 * definitions, for the attempt budget) is required for jobs whose row is written first (delayed, or `confirm`);
 * given for an immediate job, it is also read on a replay, to answer with the stored row (and to find a conflict
 * of a payloadRef job before anything is sent).
 */
interface ProducerDependencies {
  sqs: SQSClient;
  /** The jobs queue: the `urgent` lane, where every job goes unless it asks for `bulk`. */
  queueUrl: string;
  /** The bulk lane's queue (the construct's `bulkQueue`, with `priorities`); needed by a job sent `priority: 'bulk'`. */
  bulkQueueUrl?: string;
  payloads?: PayloadStore;
  delayed?: DelayedJobsConfig;
  /**
   * Emit an OpenTelemetry `leasefence send` span and carry its context in the message (SQS attributes `traceparent`,
   * `tracestate`), so the worker's spans join the trace (README.md, "Tracing"). Ids in its attributes are hashed
   * under `identifierKey` (the deployment's, as in the worker's logs); without one they read `withheld`. Off by
   * default: the OpenTelemetry API is then never loaded.
   */
  tracing?: { identifierKey?: IdentifierKey };
}

/**
 * A job to send: identity from business intent, and either the payload body (stored inline in the payloads
 * table) or a payloadRef the producer owns, with the payload or its precomputed hash to bind it.
 */
type SendJobInput = {
  tenantId: string;
  operationId: string;
  jobType: string;
  /** The version of the job definition the payload was built for; a worker running another version quarantines it. */
  jobVersion?: number;
  delaySeconds?: number;
  /**
   * Enqueue as the inbox: write the queued row first (one conditional write, needs `delayed`), then send its
   * wake-up. The job can be listed and cancelled at once; the answer is `created` or a `replay` with the stored
   * state and outcome, and a different payload is a PayloadConflictError with nothing written or sent. One write
   * more than the default path, where the worker creates the row.
   */
  confirm?: boolean;
  /**
   * Carry the body in the message (`payload: { body }`) instead of storing it: one SQS message, no table write; the
   * worker verifies the body and stores it (docs/PRODUCERS.md: it sits in SQS and the DLQ for their retention, where
   * erasure cannot reach it; a deployment may refuse it). Not with a payloadRef, `confirm` or a delay.
   */
  carryBody?: boolean;
  /**
   * The lane (README.md, "Flow control: rate limits and priorities"): `urgent` (the default, the jobs queue) or `bulk` (the bulk queue, which the
   * worker serves with at most part of its concurrency). An order of service, not preemption.
   */
  priority?: Priority;
} & ({ payload: unknown; payloadRef?: undefined } | { payloadRef: string; payload?: unknown; payloadHash?: string });

/** A stored job's state and recorded outcome, as a replay answer reports it (never the payload or error text). */
interface StoredJob {
  state: WorkState;
  outcomeCode?: string;
  result?: unknown;
  errorCode?: string;
}

/** What was sent. */
interface SentJob {
  /** '' when nothing was sent (a replay of a finished job, or of a row written first). */
  messageId: string;
  payloadHash: string;
  /**
   * `new`: nothing was known of this identity (or only its payload ref, which the producer does not read);
   * `replay`: this identity was seen before with this very payload (a producer retry): the job runs at most once.
   * A different payload is never an answer: it is a PayloadConflictError, thrown with nothing written or sent.
   */
  answer: 'new' | 'replay';
  /**
   * With the jobs table (`delayed`), on a replay: the stored row, or null while no worker has created it yet
   * (the message was resent). A finished row's message is not resent. Absent when the row was not read.
   */
  stored?: StoredJob | null;
  /**
   * 'replay' when the same inline body was already stored for this identity (a producer retry); 'erased' when
   * the same body was stored and then erased (it is not stored again); 'carried' when the body went in the message
   * (`carryBody`: the worker stores it).
   */
  payloadStored: 'stored' | 'replay' | 'erased' | 'by_reference' | 'carried';
  /** Rows-first jobs (delayed, or `confirm`): the queued row written before the message (a replay sent nothing; messageId is ''). */
  row?: ScheduledRow;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const sendOptionsSchema = z.lazy(() =>
  z.object({
    jobType: jobTypeSchema,
    jobVersion: z.optional(jobVersionSchema),
    delaySeconds: z.optional(z.number().check(z.int(), z.gte(0), z.lte(SQS_MAX_DELAY_SECONDS))),
    confirm: z.optional(z.boolean()),
    carryBody: z.optional(z.boolean()),
    payloadRef: z.optional(payloadRefSchema),
    payloadHash: z.optional(payloadHashSchema),
    priority: z.optional(z.enum(['urgent', 'bulk'])),
  }),
);

/**
 * Sends a job: computes the payload hash (RFC 8785 + SHA-256), stores an inline body immutably (a different
 * body for the same identity ▶ PayloadConflictError, nothing sent), then sends the wake-up message; the worker
 * creates the row (two writes per job). The answer says `new` or `replay`; with the jobs table (`delayed`) a
 * replay carries the stored row's state and outcome, a finished job is not signalled again, and a payloadRef
 * job whose row holds another hash is a PayloadConflictError before anything is sent. With `delaySeconds` > 0
 * or `confirm` the queued row is written first and the message is its wake-up (see scheduleDelayedJob): visible
 * and cancellable at once, one extra write. With `carryBody` the body travels in the message and nothing is written
 * (see sendCarried). Bad input ▶ InvalidInputError before anything is written or sent.
 * @example
 * await sendJob({ sqs, queueUrl, payloads }, { tenantId: 'acme', operationId: 'refund-r_815', jobType: 'refund', payload: { amount: 70.25 } });
 */
async function sendJob(deps: ProducerDependencies, input: SendJobInput): Promise<SentJob> {
  if (deps.tracing === undefined) return sendUntraced(deps, input);
  const tracer = await loadOpenTelemetryTracer(deps.tracing.identifierKey ?? (() => undefined));
  const fields = () => ({
    identity: { tenantId: input.tenantId, operationId: input.operationId },
    jobType: input.jobType,
  });
  return tracer.span(SpanName.send, fields, () => sendUntraced(deps, input, tracer), { kind: 'producer' });
}

/** sendJob's work; with a tracer, the message carries the active (send) span's context. */
async function sendUntraced(lanes: ProducerDependencies, input: SendJobInput, tracer?: JobTracer): Promise<SentJob> {
  const identity = parseIdentity({ tenantId: input.tenantId, operationId: input.operationId });
  const options = parseInput(
    sendOptionsSchema,
    {
      jobType: input.jobType,
      jobVersion: input.jobVersion,
      delaySeconds: input.delaySeconds,
      confirm: input.confirm,
      carryBody: input.carryBody,
      payloadRef: input.payloadRef,
      payloadHash: 'payloadHash' in input ? input.payloadHash : undefined,
      priority: input.priority,
    },
    'job',
  );
  const deps = inLane(lanes, options.priority);
  const hash = resolveHash(input, options.payloadHash);
  const rowsFirst = options.confirm === true || (options.delaySeconds !== undefined && options.delaySeconds > 0);
  if (options.carryBody === true) return sendCarried(deps, identity, options, input.payload, hash, rowsFirst, tracer);
  // Refused before the body is stored: bad input mutates nothing.
  if (rowsFirst) requireRowsConfig(deps, options.jobType);
  let payloadStored: SentJob['payloadStored'] = 'by_reference';
  if (options.payloadRef === undefined) {
    if (!deps.payloads)
      throw new InvalidInputError('inline payloads need a payloads table', [{ path: 'payloads', message: 'missing' }]);
    payloadStored = await storeInline(deps, identity, input.payload, hash);
  }
  const binding: PayloadBinding = options.payloadRef !== undefined ? { ref: options.payloadRef } : { inline: true };
  if (rowsFirst) {
    const row = await scheduleDelayedJob(
      deps,
      {
        identity,
        jobType: options.jobType,
        ...(options.jobVersion !== undefined ? { jobVersion: options.jobVersion } : {}),
        payloadHash: hash,
        payload: binding,
        delaySeconds: options.delaySeconds ?? 0,
      },
      tracer?.carrier(),
    );
    const answer = row.outcome === 'replay' ? 'replay' : 'new';
    return { messageId: row.messageId ?? '', payloadHash: hash, answer, payloadStored, row };
  }
  // A row can only exist for an identity seen before: a body stored just now needs no read.
  const stored = deps.delayed && payloadStored !== 'stored' ? await storedJob(deps.delayed, identity, hash) : undefined;
  const answer = payloadStored === 'replay' || payloadStored === 'erased' || stored ? 'replay' : 'new';
  const known = stored !== undefined ? { stored } : {};
  if (stored && FINISHED_STATES.includes(stored.state)) {
    return { messageId: '', payloadHash: hash, answer, payloadStored, ...known };
  }
  const messageId = await sendJobMessage(deps, identity, options, hash, binding, tracer);
  return { messageId, payloadHash: hash, answer, payloadStored, ...known };
}

/** The dependencies with the chosen lane's queue; `bulk` without a bulk queue ▶ InvalidInputError, nothing sent. */
function inLane(deps: ProducerDependencies, priority: Priority | undefined): ProducerDependencies {
  if (priority !== 'bulk') return deps;
  if (deps.bulkQueueUrl === undefined) {
    throw new InvalidInputError("priority 'bulk' needs the bulk queue (bulkQueueUrl; the construct's priorities)", [
      { path: 'priority', message: 'no bulk queue configured' },
    ]);
  }
  return { ...deps, queueUrl: deps.bulkQueueUrl };
}

/**
 * `carryBody`: the body goes in the `job` message and nothing is written (the hash, computed above, already refused
 * a body over MAX_PAYLOAD_BYTES). With the jobs table (`delayed`) a row holding another hash is a
 * PayloadConflictError and a finished one a replay, both before anything is sent. A payloadRef, `confirm` or a
 * delay ▶ InvalidInputError (a row written first is woken by a message without a body), nothing sent.
 */
async function sendCarried(
  deps: ProducerDependencies,
  identity: ValidIdentity,
  options: z.output<typeof sendOptionsSchema>,
  payload: unknown,
  hash: string,
  rowsFirst: boolean,
  tracer: JobTracer | undefined,
): Promise<SentJob> {
  const clash = options.payloadRef !== undefined ? 'payloadRef' : rowsFirst ? 'confirm or delaySeconds' : undefined;
  if (clash !== undefined) {
    throw new InvalidInputError(`carryBody cannot be combined with ${clash}`, [
      { path: 'carryBody', message: `not with ${clash}: the message carries the body of a first send only` },
    ]);
  }
  const stored = deps.delayed ? await storedJob(deps.delayed, identity, hash) : undefined;
  const answer = stored ? 'replay' : 'new';
  const known = stored !== undefined ? { stored } : {};
  if (stored && FINISHED_STATES.includes(stored.state)) {
    return { messageId: '', payloadHash: hash, answer, payloadStored: 'carried', ...known };
  }
  // The canonical form travels (what the hash was computed over), so the worker hashes exactly what was checked.
  const body = JSON.parse(canonicalJson(payload)) as unknown;
  const messageId = await sendJobMessage(deps, identity, options, hash, { body }, tracer);
  return { messageId, payloadHash: hash, answer, payloadStored: 'carried', ...known };
}

/**
 * Sends the `job` message. Every field was parsed where it came in, once: the identity (parseIdentity), the type,
 * version and ref (sendOptionsSchema), the hash (computed from the body, or given and parsed); so the envelope is
 * sent without a second walk.
 */
async function sendJobMessage(
  deps: ProducerDependencies,
  identity: ValidIdentity,
  options: z.output<typeof sendOptionsSchema>,
  hash: string,
  binding: PayloadBinding | { body: unknown },
  tracer: JobTracer | undefined,
): Promise<string> {
  const envelope = {
    v: ENVELOPE_VERSION,
    kind: 'job',
    tenantId: identity.tenantId,
    operationId: identity.operationId,
    jobType: options.jobType,
    ...(options.jobVersion !== undefined ? { jobVersion: options.jobVersion } : {}),
    payloadHash: hash,
    payload: binding,
  } as CheckedEnvelope;
  const sent = await deps.sqs.send(
    new SendMessageCommand({
      QueueUrl: deps.queueUrl,
      MessageBody: encodeEnvelope(envelope),
      MessageGroupId: messageGroupOf(identity.tenantId),
      ...(tracer ? { MessageAttributes: traceMessageAttributes(tracer.carrier()) } : {}),
    }),
  );
  return sent.MessageId ?? '';
}

/**
 * Stores the inline body (PayloadStore.write); a conflict is rethrown with the stored row's state when the jobs
 * table is configured, so the producer sees what its identity is already bound to.
 */
async function storeInline(
  deps: ProducerDependencies,
  identity: ValidIdentity,
  payload: unknown,
  hash: string,
): Promise<'stored' | 'replay' | 'erased'> {
  try {
    return await (deps.payloads as PayloadStore).write(identity, payload, hash);
  } catch (error) {
    if (!deps.delayed || !isLeasefenceError(error, PayloadConflictError)) throw error;
    const existing = (error.existing ?? {}) as { payloadHash?: string };
    const row = await jobsStore(deps.delayed).get(identity);
    throw new PayloadConflictError(error.message, { ...existing, stored: row ? storedJobOf(row) : null });
  }
}

/**
 * The stored row of an identity seen before, or null when there is none yet; a row bound to another payload hash
 * is a PayloadConflictError (nothing sent).
 */
async function storedJob(config: DelayedJobsConfig, identity: ValidIdentity, hash: string): Promise<StoredJob | null> {
  const row = await jobsStore(config).get(identity);
  if (!row) return null;
  if (row.payloadHash !== hash) {
    throw new PayloadConflictError(
      `${formatIdentity(identity)} already exists with a different payload hash; nothing was sent`,
      { payloadHash: row.payloadHash, stored: storedJobOf(row) },
    );
  }
  return storedJobOf(row);
}

function storedJobOf(row: WorkItem): StoredJob {
  return { state: row.state, ...recordedOutcome(row) };
}

/** The hash of the approved payload: computed from the body, or given with a ref (and checked when both are). */
function resolveHash(input: SendJobInput, givenHash: string | undefined): string {
  const hasBody = input.payload !== undefined;
  if (!hasBody && givenHash === undefined) {
    throw new InvalidInputError('a payloadRef job needs the payload or its payloadHash to bind the identity', [
      { path: 'payloadHash', message: 'required with payloadRef when no payload is given' },
    ]);
  }
  const computed = hasBody ? payloadHash(input.payload) : undefined;
  if (computed !== undefined && givenHash !== undefined && computed !== givenHash) {
    throw new InvalidInputError('payloadHash does not match the payload', [
      { path: 'payloadHash', message: 'mismatch' },
    ]);
  }
  return computed ?? (givenHash as string);
}

export { type ProducerDependencies, type SendJobInput, type SentJob, type StoredJob, sendJob };
