import { ConfigurationError, InvalidInputError, isLeasefenceError, PayloadConflictError } from '../errors.js';
import { canonicalJson, MAX_PAYLOAD_BYTES, sha256Hex } from '../hashing.js';
import type { BoundMessage, ReceivedMessage } from '../messaging/envelope.js';
import type { InlinePayloadPolicy } from '../rules.js';
import { type PayloadStore, rowAwaitsBody, type WorkItem } from '../store/index.js';
import type { LoadedPayload } from './load-payload.js';

/** Quarantine reasons of a message whose carried body cannot be adopted (the body itself is never recorded). */
const CarriedBodyRefusal = {
  /** The deployment refuses bodies in messages (`inlinePayloads: 'refuse'`). */
  refused: 'inline_payload_refused',
  /** The canonical body exceeds MAX_PAYLOAD_BYTES. */
  tooLarge: 'payload_too_large',
  /** The body has no canonical JSON form (a lone surrogate). */
  unreadable: 'payload_unreadable',
  /** The body does not hash to the message's payloadHash. */
  hashMismatch: 'payload_hash_mismatch',
  /** The identity already has a different body stored. */
  conflict: 'payload_conflict',
} as const;

/**
 * What checking a message's carried body came to, with nothing written: the message bound as an inline job, with
 * the payload as verified (a `payload_missing` one when the same body was stored and erased since: it is not stored
 * again) and `storeAfterRow` when the payloads table has no body for it yet (storeCarriedBody stores it once the row
 * is ours), or why the message is quarantined.
 */
type Adoption =
  | { adopted: true; bound: BoundMessage; precheck: LoadedPayload; storeAfterRow: boolean }
  | { adopted: false; reason: (typeof CarriedBodyRefusal)[keyof typeof CarriedBodyRefusal]; detail: string };

/**
 * Checks the body a first message carries, writing nothing: the deployment's policy, the canonical size, the hash,
 * then the identity's payload slot (one consistent read): a different body stored (or erased) there is a conflict,
 * the same one a replay. The body itself is stored only after the row (storeCarriedBody), so a message that
 * conflicts with the row leaves the payloads table as it was. A message without a body answers undefined. The
 * details name rules, never the body. Throws for infrastructure errors (redelivered) and when a carried body meets
 * a worker without a payloads table.
 */
async function adoptCarriedBody(
  received: ReceivedMessage,
  payloads: PayloadStore | undefined,
  policy: InlinePayloadPolicy,
): Promise<Adoption | undefined> {
  const { envelope, identity } = received;
  if (!('body' in envelope.payload)) return undefined;
  if (policy === 'refuse') {
    const detail = 'this deployment refuses payload bodies in messages: store the body or send a payloadRef';
    return { adopted: false, reason: CarriedBodyRefusal.refused, detail };
  }
  if (!payloads) throw new ConfigurationError('a message carries a payload body but no payloads table is configured');
  const body: unknown = envelope.payload.body;
  let canonical: string;
  try {
    canonical = canonicalJson(body);
  } catch (error) {
    if (!isLeasefenceError(error, InvalidInputError)) throw error;
    return error.issues.some((issue) => issue.message === 'too large')
      ? {
          adopted: false,
          reason: CarriedBodyRefusal.tooLarge,
          detail: `canonical body exceeds ${MAX_PAYLOAD_BYTES} bytes`,
        }
      : { adopted: false, reason: CarriedBodyRefusal.unreadable, detail: 'payload body has no canonical JSON form' };
  }
  if (sha256Hex(canonical) !== envelope.payloadHash) {
    const detail = 'payload body does not hash to the message payloadHash; nothing was stored';
    return { adopted: false, reason: CarriedBodyRefusal.hashMismatch, detail };
  }
  const slot = await payloads.inspect(identity);
  if (slot.kind !== 'empty' && slot.payloadHash !== envelope.payloadHash) return CONFLICT;
  const bound = { identity, envelope: { ...envelope, payload: { inline: true as const } } } as BoundMessage;
  const precheck: LoadedPayload =
    slot.kind === 'erased' ? ERASED_SINCE : { ok: true, body, payloadHash: envelope.payloadHash };
  return { adopted: true, bound, precheck, storeAfterRow: slot.kind === 'empty' };
}

const CONFLICT: Adoption = {
  adopted: false,
  reason: CarriedBodyRefusal.conflict,
  detail: 'same identity, a different payload body is stored; nothing was changed',
};

const ERASED_SINCE: LoadedPayload = {
  ok: false,
  errorCode: 'payload_missing',
  message: 'the same payload was stored and erased since',
};

/**
 * Stores a carried body once its row is ours: `created` by this message, or an existing row bound inline to the
 * same hash and type that has not finished (a crash between the row and the body left it without one; that row
 * waits, queued, for this redelivery). A row bound by payloadRef, or finished, gets no body. Answers the payload
 * the claim may not reuse when the store did not keep this body (erased since, or another body stored meanwhile by
 * a producer: the claim then reads the table and quarantines), else undefined. Throws for infrastructure errors:
 * the message is redelivered and the row, without its body, is never run.
 */
async function storeCarriedBody(
  payloads: PayloadStore,
  { identity, envelope }: ReceivedMessage,
  row: WorkItem | 'created',
): Promise<LoadedPayload | undefined> {
  if (!('body' in envelope.payload)) return undefined;
  if (row !== 'created' && !rowAwaitsBody(row, envelope)) return undefined;
  try {
    const stored = await payloads.write(identity, envelope.payload.body, envelope.payloadHash);
    return stored === 'erased' ? ERASED_SINCE : undefined;
  } catch (error) {
    if (!isLeasefenceError(error, PayloadConflictError)) throw error;
    return { ok: false, errorCode: 'payload_hash_mismatch', message: 'another body was stored for this identity' };
  }
}

export { type Adoption, adoptCarriedBody, CarriedBodyRefusal, storeCarriedBody };
