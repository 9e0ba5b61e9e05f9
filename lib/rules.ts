import * as z from 'zod/mini';
import { canonicalJson } from './hashing.js';

/**
 * The one home of each naming and size rule leasefence enforces at its boundaries (the identity rules live
 * with the identity, in identity.ts). Every module that checks one of these imports it from here, so two
 * copies can never drift apart; test/unit/rules.test.ts pins each at its boundary.
 *
 * Built on first use (z.lazy: the same checks and issues), not at import, except the few the worker parses on every
 * job (payload hash and ref, attempts, version): a lazy wrapper costs each parse a call, and the first event builds
 * them anyway (test/unit/internal/module-scope-schemas.test.ts lists them with their reasons).
 */

/** SHA-256 in lowercase hex. */
const payloadHashSchema = z
  .string()
  .check(z.regex(/^[0-9a-f]{64}$/, 'payloadHash must be 64 lowercase hex chars (SHA-256)'));

/** A caller-owned pointer to the payload (an S3 key, a row id); never the payload itself. */
const payloadRefSchema = z.string().check(z.minLength(1), z.maxLength(1024));

/** How a job finds its payload: a caller-owned ref, or the body stored inline in the payloads table. */
const payloadBindingSchema = z.lazy(() => z.union(payloadBindingOptions()));

/** The binding's two shapes, new schemas per call: for its own union and the envelope's wider one (envelope.ts). */
function payloadBindingOptions() {
  return [z.strictObject({ ref: payloadRefSchema }), z.strictObject({ inline: z.literal(true) })] as const;
}

/** A payload binding: `{ ref }` or `{ inline: true }`. */
type PayloadBinding = z.output<typeof payloadBindingSchema>;

/** Attempts a job gets (1 to 100); the same rule as a job definition's `maxAttempts`. */
const maxAttemptsSchema = z.number().check(z.int(), z.gte(1), z.lte(100));

/** The version of a job definition a message names: 1 to 1,000,000 (producer and envelope alike). */
const jobVersionSchema = z.number().check(z.int(), z.gte(1), z.lte(1_000_000));

/** Job type names: 1–64 chars of `[A-Za-z0-9._-]`, starting with a letter or digit. */
const jobTypeSchema = z.lazy(() =>
  z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'jobType must be 1-64 chars of [A-Za-z0-9._-]')),
);

/** DynamoDB table names: 3–255 chars of `[A-Za-z0-9_.-]` (DynamoDB's own rule, checked before any request). */
const tableNameSchema = z.lazy(() =>
  z.string().check(z.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'tableName must be 3-255 chars of [A-Za-z0-9_.-]')),
);

/** Outcome codes: 1–64 chars of `[A-Za-z0-9._:-]`, starting with a letter or digit (machine-readable, short). */
const outcomeCodeSchema = z.lazy(() =>
  z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'outcomeCode must be 1-64 chars of [A-Za-z0-9._:-]')),
);

/** Step names: 1–64 chars of `[A-Za-z0-9._:-]`; stored as one map key (a dot never nests) and part of a request token. */
const stepNameSchema = z.lazy(() =>
  z
    .string()
    .check(z.regex(/^[A-Za-z0-9._:-]{1,64}$/, 'step name must be 1-64 chars of [A-Za-z0-9._:-]'))
    .brand<'StepName'>(),
);

/** A step name that passed stepNameSchema where the job named it; the store records only these. */
type StepName = z.output<typeof stepNameSchema>;

/**
 * Successor names (`ctx.enqueue`'s `name`, default the job type): 1–64 chars of `[A-Za-z0-9._:-]` starting with a
 * letter or digit; the successor's operation id is `<parent operation id>/<name>`, so no `/` inside a name.
 */
const successorNameSchema = z.lazy(() =>
  z
    .string()
    .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'successor name must be 1-64 chars of [A-Za-z0-9._:-]')),
);

/**
 * Largest successor payload, in UTF-8 bytes of its canonical JSON: 49 of them (the most one completion enqueues)
 * stay well inside the 4 MB a TransactWriteItems request may carry.
 */
const MAX_SUCCESSOR_PAYLOAD_BYTES = 64 * 1024;

/** Largest job or step result recorded on the work item, in UTF-8 bytes of its canonical JSON. */
const MAX_RESULT_BYTES = 16 * 1024;

/** A result recorded on the work item: absent, or a JSON value of at most MAX_RESULT_BYTES UTF-8 bytes. */
const recordedResultSchema = z.lazy(() =>
  z.unknown().check(
    z.superRefine((value, context) => {
      if (value === undefined) return;
      let bytes: number;
      try {
        bytes = Buffer.byteLength(canonicalJson(value), 'utf8');
      } catch (error) {
        context.addIssue({ code: 'custom', message: `a result must be JSON: ${(error as Error).message}` });
        return;
      }
      if (bytes > MAX_RESULT_BYTES) {
        context.addIssue({
          code: 'custom',
          message: `result is ${bytes} bytes of JSON (UTF-8); at most ${MAX_RESULT_BYTES}`,
        });
      }
    }),
  ),
);

/** A job's outcome: an outcome code and an optional small JSON result (never the payload). */
const jobOutcomeSchema = z.lazy(() =>
  z.strictObject({ outcomeCode: outcomeCodeSchema, result: z.optional(recordedResultSchema) }),
);

/**
 * Longest free-text message leasefence stores about a failure (a work row's `errorMessage`, a quarantine
 * record's `detail`), in UTF-16 code units: a hostile or chatty error can never bloat a row.
 */
const MAX_MESSAGE_CHARS = 500;

/** `text` cut to MAX_MESSAGE_CHARS (never throws; shorter text is returned as it is). */
function capMessage(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? text.slice(0, MAX_MESSAGE_CHARS) : text;
}

/** One day in milliseconds (retention periods are configured in days). */
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long inline payload bodies and quarantine records are kept, in days: `default` unless configured
 * (environment, construct, local stack), and a configured value must lie within `min`..`max`.
 */
const RetentionDays = { default: 30, min: 1, max: 3650 } as const;

/** The attributes the fence keeps on a protected (class B) record; callers may never name them. */
const WriterAttribute = {
  /** Fence of the claim that last advanced the record. */
  epoch: 'writer_epoch',
  /** Position of the last sequenced write within that claim (0 after a plain write or stamp). */
  seq: 'writer_seq',
  /** Token of the last write, so a retried write that already landed is recognised as applied. */
  token: 'writer_token',
  /** Pseudonym of the owning identity: fences of different identities are never compared. */
  operation: 'writer_op',
} as const;

/** The writer attribute names, as a list. */
const WRITER_ATTRIBUTES: readonly string[] = Object.values(WriterAttribute);

/** True when `name` is one of the fence's writer attributes. */
function isWriterAttribute(name: string): boolean {
  return WRITER_ATTRIBUTES.includes(name);
}

/**
 * An SQS queue URL: http(s), a host, a path. Checked by shape, not by a URL parser, because local engines hand
 * out URLs such as fauxqs' `http://sqs.us-east-1.127.0.0.1:PORT/000000000000/name` that WHATWG URL rejects.
 */
const queueUrlSchema = z.lazy(() =>
  z.string().check(z.regex(/^https?:\/\/[^\s/]+\/\S+$/, 'must be an http(s) queue URL')),
);

/**
 * Write shards of a deployment's deadline index: a setting the deployment chooses (construct, local stack) and
 * every tool reads from it; a reader with another count misses rows or files them where the sweeper never looks.
 */
const deadlineShardsSchema = z.lazy(() => z.number().check(z.int(), z.gte(1), z.lte(1000)));

/**
 * Whether a deployment takes payload bodies carried in the message (`accept`, the default: a producer in any
 * language then needs only SQS) or quarantines them (`refuse`: no body ever sits in the queue or the DLQ, where
 * erasure cannot reach it). A setting the deployment chooses (environment, construct, local stack).
 */
const inlinePayloadsSchema = z.lazy(() => z.enum(['accept', 'refuse']));

/** An inline-payload policy: `accept` or `refuse`. */
type InlinePayloadPolicy = z.output<typeof inlinePayloadsSchema>;

export {
  capMessage,
  DAY_MS,
  deadlineShardsSchema,
  type InlinePayloadPolicy,
  inlinePayloadsSchema,
  isWriterAttribute,
  jobOutcomeSchema,
  jobTypeSchema,
  jobVersionSchema,
  MAX_MESSAGE_CHARS,
  MAX_RESULT_BYTES,
  MAX_SUCCESSOR_PAYLOAD_BYTES,
  maxAttemptsSchema,
  outcomeCodeSchema,
  type PayloadBinding,
  payloadBindingOptions,
  payloadBindingSchema,
  payloadHashSchema,
  payloadRefSchema,
  queueUrlSchema,
  RetentionDays,
  recordedResultSchema,
  type StepName,
  stepNameSchema,
  successorNameSchema,
  tableNameSchema,
  WRITER_ATTRIBUTES,
  WriterAttribute,
};
