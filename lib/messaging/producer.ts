import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { InvalidInputError } from '../errors.js';
import { payloadHash } from '../hashing.js';
import { parseIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { jobTypeSchema, jobVersionSchema, payloadHashSchema, payloadRefSchema } from '../rules.js';
import type { PayloadStore } from '../store/payloads.js';
import { type DelayedJobsConfig, type ScheduledRow, scheduleDelayedJob } from './delayed-job.js';
import { type CheckedEnvelope, ENVELOPE_VERSION, encodeEnvelope } from './envelope.js';
import { SQS_MAX_DELAY_SECONDS } from './wake-envelope.js';

/**
 * Where jobs are sent. `payloads` is required for inline payloads; `delayed` (the jobs table and the job
 * definitions, for the attempt budget) is required for delayed jobs, whose row is written first.
 */
interface ProducerDependencies {
  sqs: SQSClient;
  queueUrl: string;
  payloads?: PayloadStore;
  delayed?: DelayedJobsConfig;
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
} & ({ payload: unknown; payloadRef?: undefined } | { payloadRef: string; payload?: unknown; payloadHash?: string });

/** What was sent. */
interface SentJob {
  messageId: string;
  payloadHash: string;
  /**
   * 'replay' when the same inline body was already stored for this identity (a producer retry); 'erased' when
   * the same body was stored and then erased (it is not stored again).
   */
  payloadStored: 'stored' | 'replay' | 'erased' | 'by_reference';
  /** Delayed jobs only: the queued row written before the message (a replay sent nothing; messageId is ''). */
  row?: ScheduledRow;
}

const sendOptionsSchema = z.object({
  jobType: jobTypeSchema,
  jobVersion: jobVersionSchema.optional(),
  delaySeconds: z.number().int().min(0).max(SQS_MAX_DELAY_SECONDS).optional(),
  payloadRef: payloadRefSchema.optional(),
  payloadHash: payloadHashSchema.optional(),
});

/**
 * Sends a job: computes the payload hash (RFC 8785 + SHA-256), stores an inline body immutably (a different
 * body for the same identity ▶ PayloadConflictError, nothing sent), then sends the wake-up message; the worker
 * creates the row (two writes per job). With `delaySeconds` > 0 the queued row is written first and the
 * message is a delayed wake-up (see scheduleDelayedJob): visible and cancellable at once, one extra write.
 * Bad input ▶ InvalidInputError before anything is written or sent.
 * @example
 * await sendJob({ sqs, queueUrl, payloads }, { tenantId: 'acme', operationId: 'refund-r_815', jobType: 'refund', payload: { amount: 70.25 } });
 */
async function sendJob(deps: ProducerDependencies, input: SendJobInput): Promise<SentJob> {
  const identity = parseIdentity({ tenantId: input.tenantId, operationId: input.operationId });
  const options = parseInput(
    sendOptionsSchema,
    {
      jobType: input.jobType,
      jobVersion: input.jobVersion,
      delaySeconds: input.delaySeconds,
      payloadRef: input.payloadRef,
      payloadHash: 'payloadHash' in input ? input.payloadHash : undefined,
    },
    'job',
  );
  const hash = resolveHash(input, options.payloadHash);
  let payloadStored: SentJob['payloadStored'] = 'by_reference';
  if (options.payloadRef === undefined) {
    if (!deps.payloads)
      throw new InvalidInputError('inline payloads need a payloads table', [{ path: 'payloads', message: 'missing' }]);
    payloadStored = await deps.payloads.write(identity, input.payload, hash);
  }
  if (options.delaySeconds !== undefined && options.delaySeconds > 0) {
    const row = await scheduleDelayedJob(deps, {
      identity,
      jobType: options.jobType,
      ...(options.jobVersion !== undefined ? { jobVersion: options.jobVersion } : {}),
      payloadHash: hash,
      payload: options.payloadRef !== undefined ? { ref: options.payloadRef } : { inline: true },
      delaySeconds: options.delaySeconds,
    });
    return { messageId: row.messageId ?? '', payloadHash: hash, payloadStored, row };
  }
  // Every field was parsed above, once: the identity (parseIdentity), the type, version and ref (sendOptionsSchema),
  // the hash (computed from the body, or given and parsed); so the envelope is sent without a second walk.
  const envelope = {
    v: ENVELOPE_VERSION,
    kind: 'job',
    tenantId: identity.tenantId,
    operationId: identity.operationId,
    jobType: options.jobType,
    ...(options.jobVersion !== undefined ? { jobVersion: options.jobVersion } : {}),
    payloadHash: hash,
    payload: options.payloadRef !== undefined ? { ref: options.payloadRef } : { inline: true },
  } as CheckedEnvelope;
  const sent = await deps.sqs.send(
    new SendMessageCommand({
      QueueUrl: deps.queueUrl,
      MessageBody: encodeEnvelope(envelope),
    }),
  );
  return { messageId: sent.MessageId ?? '', payloadHash: hash, payloadStored };
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

export { type ProducerDependencies, type SendJobInput, type SentJob, sendJob };
