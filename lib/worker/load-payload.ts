import { ConfigurationError } from '../errors.js';
import { payloadHash } from '../hashing.js';
import type { JobIdentity } from '../identity.js';
import type { Claim, PayloadStore } from '../store/index.js';

/**
 * Loads the body behind a caller-owned payloadRef (S3 object, row, …) for `identity`. It must return undefined for
 * a ref that is not that identity's tenant's: the worker creates a job's row only once its payload resolves and
 * hashes to the message's hash, so a ref another tenant names is never run, nor bound to the identity.
 */
type PayloadResolver = (ref: string, identity: JobIdentity) => Promise<unknown>;

/**
 * The payload, re-verified against the hash bound to the identity (`payloadHash`), or why it cannot be used.
 * `notStoredYet`: the inline slot is empty, not erased: a carried body stored after its row may still arrive.
 */
type LoadedPayload =
  | { ok: true; body: unknown; payloadHash: string }
  | {
      ok: false;
      errorCode: 'payload_missing' | 'payload_hash_mismatch' | 'payload_unreadable';
      message: string;
      notStoredYet?: true;
    };

/** What binds a payload to an identity: the hash, and where the body is (a claim or a first message carries it). */
type PayloadBinding = Pick<Claim, 'identity' | 'payloadHash' | 'payloadInline' | 'payloadRef'>;

/** Where payloads come from: the payloads table for inline bodies, the resolver for refs. */
interface PayloadSources {
  payloads?: PayloadStore;
  resolver?: PayloadResolver;
}

/**
 * Fetches a job's payload (for a claim, or for a first message before its row is created) and re-computes its
 * hash: a body that does not match the hash bound to the identity is never run. Throws for infrastructure or
 * configuration errors (the message is redelivered).
 */
async function loadVerifiedPayload(sources: PayloadSources, claim: PayloadBinding): Promise<LoadedPayload> {
  let body: unknown;
  if (claim.payloadInline) {
    if (!sources.payloads) throw new ConfigurationError('inline payload but no payloads table is configured');
    const slot = await sources.payloads.inspect(claim.identity);
    if (slot.kind === 'erased') return missing('inline payload body was erased');
    if (slot.kind === 'empty') {
      const message = 'inline payload body is not stored (not yet, or its retention ran out)';
      return { ok: false, errorCode: 'payload_missing', message, notStoredYet: true };
    }
    body = slot.body;
  } else {
    if (claim.payloadRef === undefined) return missing('item has neither an inline payload nor a payloadRef');
    if (!sources.resolver) throw new ConfigurationError('payloadRef job but the worker has no payload resolver');
    body = await sources.resolver(claim.payloadRef, claim.identity);
    if (body === undefined) return missing('payload resolver found nothing for the ref');
  }
  let actual: string;
  try {
    actual = payloadHash(body);
  } catch {
    return { ok: false, errorCode: 'payload_unreadable', message: 'payload is not JSON-representable' };
  }
  if (actual !== claim.payloadHash) {
    return { ok: false, errorCode: 'payload_hash_mismatch', message: 'payload hash differs from the approved hash' };
  }
  return { ok: true, body, payloadHash: claim.payloadHash };
}

function missing(message: string): LoadedPayload {
  return { ok: false, errorCode: 'payload_missing', message };
}

export { type LoadedPayload, loadVerifiedPayload, type PayloadBinding, type PayloadResolver, type PayloadSources };
