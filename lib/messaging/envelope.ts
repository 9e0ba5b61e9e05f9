import * as z from 'zod/mini';
import { operationIdSchema, tenantIdSchema, type ValidIdentity } from '../identity.js';
import { describeIssues } from '../internal/issue-paths.js';
import { parseInput } from '../internal/validation.js';
import { jobTypeSchema, jobVersionSchema, payloadBindingOptions, payloadHashSchema } from '../rules.js';
import { checkPlainEnvelope } from './envelope-check.js';

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: the worker checks a
// plain envelope in one pass (envelope-check.ts) and parses with them only what that check does not accept.

/** Envelope versions this build understands; anything else is quarantined, never guessed at. */
const ENVELOPE_VERSION = 1;

/**
 * A payload body carried in the message itself (`payload: { body }`): the worker verifies it against the hash and
 * moves it into the payloads table, after which the job is one with an inline body like any other. Only a first
 * send may carry one; its size is checked with the hash (MAX_PAYLOAD_BYTES of canonical JSON, payload_too_large).
 */
const carriedBodySchema = z.lazy(() => z.strictObject({ body: z.json() }));

/** Where a message's payload is: a caller-owned ref, the payloads table, or carried in the message (exactly one). */
const messagePayloadSchema = z.lazy(() => z.union([...payloadBindingOptions(), carriedBodySchema]));

/**
 * The SQS message body: a wake-up signal that names a job; its payload body only when the producer carries it
 * (`payload: { body }`, a first send only). `kind: 'job'` is a producer's first send (the worker may create the
 * item); `kind: 'wake'` re-signals an existing item (sweeper, admin retry, redrive) and goes straight to claim.
 */
const jobEnvelopeSchema = z.lazy(() =>
  z
    .strictObject({
      v: z.literal(ENVELOPE_VERSION),
      kind: z.enum(['job', 'wake']),
      tenantId: tenantIdSchema,
      operationId: operationIdSchema,
      jobType: jobTypeSchema,
      /** The job definition version the producer built the payload for; a worker running another one quarantines it. */
      jobVersion: z.optional(jobVersionSchema),
      payloadHash: payloadHashSchema,
      payload: messagePayloadSchema,
    })
    // A wake-up never carries a body (it names a row that already has one).
    .check(
      z.refine((envelope) => envelope.kind === 'job' || !('body' in envelope.payload), {
        message: 'only a kind "job" message may carry a payload body',
        path: ['payload'],
      }),
    ),
);

/** A job message's fields (what a producer, the sweeper or a test builds; serializeEnvelope checks it). */
type JobEnvelope = z.infer<typeof jobEnvelopeSchema>;

/** A message's payload binding once any carried body is in the payloads table: a ref or inline, never a body. */
type StoredBinding = Exclude<JobEnvelope['payload'], { body: unknown }>;

/** A job message as parsed from an SQS body: only parseEnvelope makes one, and nothing checks it again. */
type ReceivedEnvelope = JobEnvelope & z.$brand<'ReceivedEnvelope'>;

/** A parsed message: the envelope and the identity it names, built once for the whole way through the worker. */
interface ReceivedMessage {
  envelope: ReceivedEnvelope;
  identity: ValidIdentity;
}

/** A received envelope whose payload is a ref or in the payloads table: any body it carried has been moved there. */
type BoundEnvelope = Omit<ReceivedEnvelope, 'payload'> & { payload: StoredBinding };

/** A received message past the carried-body step: what claims and creates rows (never holds a body). */
interface BoundMessage {
  envelope: BoundEnvelope;
  identity: ValidIdentity;
}

/** The message as it is when it carries no body (a ref or inline binding), or undefined when it carries one. */
function boundAsReceived(received: ReceivedMessage): BoundMessage | undefined {
  const { payload } = received.envelope;
  return 'body' in payload ? undefined : (received as BoundMessage);
}

/** Why a message could not be interpreted: the quarantine reason codes. */
type EnvelopeProblem = 'unparseable' | 'unsupported_version' | 'invalid_envelope';

/** Quarantine reason of a message naming a job version this worker does not run. */
const JOB_VERSION_UNSUPPORTED = 'job_version_unsupported';

/**
 * Parses an SQS body, the worker's boundary: the envelope, and the identity it names built once. Never throws:
 * bad input is a typed problem for the quarantine, not a crash. The detail
 * holds codes and schema paths only, never text or keys taken from the body.
 */
function parseEnvelope(
  body: string,
): ({ ok: true } & ReceivedMessage) | { ok: false; problem: EnvelopeProblem; detail: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    // The parser's message quotes the body; the detail never does.
    return { ok: false, problem: 'unparseable', detail: 'body is not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: 'invalid_envelope', detail: 'body is not a JSON object' };
  }
  const version = (raw as { v?: unknown }).v;
  if (version !== ENVELOPE_VERSION) {
    const seen = version === undefined ? 'missing' : typeof version === 'number' ? 'another number' : typeof version;
    return {
      ok: false,
      problem: 'unsupported_version',
      detail: `envelope version (${seen}) is not ${ENVELOPE_VERSION}`,
    };
  }
  // The common shapes in one pass (exactly as strict: envelope-check.ts), anything else by the schema.
  const checked = checkPlainEnvelope(raw);
  if (checked !== undefined) return receivedMessage(checked as JobEnvelope);
  const parsed = jobEnvelopeSchema.safeParse(raw);
  if (parsed.success) return receivedMessage(parsed.data);
  return { ok: false, problem: 'invalid_envelope', detail: describeIssues(jobEnvelopeSchema, parsed.error.issues) };
}

/** A checked envelope and the identity it names, built once. */
function receivedMessage(data: JobEnvelope): { ok: true } & ReceivedMessage {
  const envelope = data as ReceivedEnvelope;
  // The envelope's tenantId and operationId passed identitySchema's own field schemas just now.
  const identity = Object.freeze({ tenantId: envelope.tenantId, operationId: envelope.operationId }) as ValidIdentity;
  return { ok: true, envelope, identity };
}

/** An envelope whose every field passed its schema where it entered (the producer's parsed call): sent as is. */
type CheckedEnvelope = JobEnvelope & z.$brand<'CheckedEnvelope'>;

/** The SQS body of a checked envelope (no second walk: its fields were parsed where they came in). */
function encodeEnvelope(envelope: CheckedEnvelope): string {
  return JSON.stringify(envelope);
}

/** Serialises a hand-built envelope for SQS (a row's wake-up, a tool's message): validated first, InvalidInputError on a bad one. */
function serializeEnvelope(envelope: JobEnvelope): string {
  return JSON.stringify(parseInput(jobEnvelopeSchema, envelope, 'job message'));
}

export {
  type BoundEnvelope,
  type BoundMessage,
  boundAsReceived,
  type CheckedEnvelope,
  ENVELOPE_VERSION,
  type EnvelopeProblem,
  encodeEnvelope,
  JOB_VERSION_UNSUPPORTED,
  type JobEnvelope,
  jobEnvelopeSchema,
  parseEnvelope,
  type ReceivedEnvelope,
  type ReceivedMessage,
  type StoredBinding,
  serializeEnvelope,
};
