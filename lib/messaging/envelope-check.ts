import { operationIdSchema, tenantIdSchema } from '../identity.js';
import { memoizeBounded } from '../internal/memoize.js';
import { isOrdinaryObject, ownKeysWithin } from '../internal/object-shape.js';
import { jobTypeSchema, jobVersionSchema, payloadHashSchema, payloadRefSchema } from '../rules.js';

/** An envelope as envelope.ts's schema returns it, for the shapes checked here (no carried body). */
interface CheckedEnvelopeFields {
  v: 1;
  kind: 'job' | 'wake';
  tenantId: string;
  operationId: string;
  jobType: string;
  jobVersion?: number;
  payloadHash: string;
  payload: { ref: string } | { inline: true };
}

const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  'v',
  'kind',
  'tenantId',
  'operationId',
  'jobType',
  'jobVersion',
  'payloadHash',
  'payload',
]);
const REQUIRED_KEYS = ['v', 'kind', 'tenantId', 'operationId', 'jobType', 'payloadHash', 'payload'] as const;

/** Job types recur on every message: each distinct one is checked with its schema once and the verdict kept. */
const validJobType = memoizeBounded((jobType) => jobTypeSchema.safeParse(jobType).success, 256);

/**
 * An SQS body's envelope (already JSON-parsed, version 1) checked in one pass, ahead of the full zod schema in
 * envelope.ts: each field by its own schema (rules.ts, identity.ts), the object's members and the payload binding
 * (`{ ref }` or `{ inline: true }`) directly. A valid envelope of that shape is returned exactly as the schema returns
 * it (a copy, members in the schema's order); anything else (a carried body, another member, an unusual object, any
 * invalid field) returns undefined and the caller parses with the schema, which gives the verdict and the detail.
 * So it accepts nothing the schema refuses (test/unit/messaging/envelope-check.test.ts). Why: a zod object and
 * union parse per message on figure 9's path (test/bench/README.md, "Worker CPU").
 */
function checkPlainEnvelope(raw: unknown): CheckedEnvelopeFields | undefined {
  if (!isOrdinaryObject(raw) || !ownKeysWithin(raw, ENVELOPE_KEYS, REQUIRED_KEYS)) return undefined;
  const { v, kind, tenantId, operationId, jobType, payloadHash } = raw;
  if (v !== 1 || (kind !== 'job' && kind !== 'wake')) return undefined;
  if (typeof jobType !== 'string' || !validJobType(jobType)) return undefined;
  if (!tenantIdSchema.safeParse(tenantId).success || !operationIdSchema.safeParse(operationId).success)
    return undefined;
  if (!payloadHashSchema.safeParse(payloadHash).success) return undefined;
  const payload = checkBinding(raw.payload);
  if (payload === undefined) return undefined;
  const hasVersion = Object.hasOwn(raw, 'jobVersion');
  if (hasVersion && !jobVersionSchema.safeParse(raw.jobVersion).success) return undefined;
  const envelope: CheckedEnvelopeFields = {
    v,
    kind,
    tenantId: tenantId as string,
    operationId: operationId as string,
    jobType,
    ...(hasVersion ? { jobVersion: raw.jobVersion as number } : {}),
    payloadHash: payloadHash as string,
    payload,
  };
  return envelope;
}

/** `{ ref }` (a valid ref) or `{ inline: true }`, copied; undefined for anything else (a body included). */
function checkBinding(payload: unknown): { ref: string } | { inline: true } | undefined {
  if (!isOrdinaryObject(payload) || Reflect.ownKeys(payload).length !== 1) return undefined;
  for (const key in payload) if (key !== 'ref' && key !== 'inline') return undefined;
  if (Object.hasOwn(payload, 'inline')) return payload.inline === true ? { inline: true } : undefined;
  const ref = payload.ref;
  return Object.hasOwn(payload, 'ref') && payloadRefSchema.safeParse(ref).success ? { ref: ref as string } : undefined;
}

export { type CheckedEnvelopeFields, checkPlainEnvelope };
