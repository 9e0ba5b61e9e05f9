import { ConfigurationError, InvalidInputError, isLeasefenceError, PayloadConflictError } from '../errors.js';
import { canonicalJson, MAX_PAYLOAD_BYTES, sha256Hex } from '../hashing.js';
import type { BoundMessage, ReceivedMessage } from '../messaging/envelope.js';
import type { InlinePayloadPolicy } from '../rules.js';
import type { PayloadStore } from '../store/payloads.js';
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
 * What adopting a message's carried body came to: the message bound to the body now in the payloads table, with
 * the payload as verified (a `payload_missing` one when the same body was stored and erased since: it is not
 * stored again), or why the message is quarantined, with nothing written.
 */
type Adoption =
  | { adopted: true; bound: BoundMessage; precheck: LoadedPayload }
  | { adopted: false; reason: (typeof CarriedBodyRefusal)[keyof typeof CarriedBodyRefusal]; detail: string };

/**
 * Moves the body a first message carries into the payloads table, through the store's one conditional put by
 * identity: verified against the message's hash first (a body that does not match is never stored), the same hash
 * again is a replay, a different one a conflict with nothing written. Then the message is an inline job like any
 * other. A message without a body is returned bound as it is. The details name rules, never the body. Throws for
 * infrastructure errors (redelivered) and when a carried body meets a worker without a payloads table.
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
  let stored: Awaited<ReturnType<PayloadStore['write']>>;
  try {
    stored = await payloads.write(identity, body, envelope.payloadHash);
  } catch (error) {
    if (!isLeasefenceError(error, PayloadConflictError)) throw error;
    const detail = 'same identity, a different payload body is stored; nothing was changed';
    return { adopted: false, reason: CarriedBodyRefusal.conflict, detail };
  }
  const bound = { identity, envelope: { ...envelope, payload: { inline: true as const } } } as BoundMessage;
  const precheck: LoadedPayload =
    stored === 'erased'
      ? { ok: false, errorCode: 'payload_missing', message: 'the same payload was stored and erased since' }
      : { ok: true, body, payloadHash: envelope.payloadHash };
  return { adopted: true, bound, precheck };
}

export { type Adoption, adoptCarriedBody, CarriedBodyRefusal };
