import { ConfigurationError } from '../errors.js';
import { payloadHash } from '../hashing.js';
import type { JobIdentity } from '../identity.js';
import type { PayloadStore } from '../store/payloads.js';
import type { Claim } from '../store/work-item.js';

/** Loads the body behind a caller-owned payloadRef (S3 object, row, …). */
type PayloadResolver = (ref: string, identity: JobIdentity) => Promise<unknown>;

/** The payload, re-verified against the hash bound to the identity, or why it cannot be used. */
type LoadedPayload =
  | { ok: true; body: unknown }
  | { ok: false; errorCode: 'payload_missing' | 'payload_hash_mismatch' | 'payload_unreadable'; message: string };

/** Where payloads come from: the payloads table for inline bodies, the resolver for refs. */
interface PayloadSources {
  payloads?: PayloadStore;
  resolver?: PayloadResolver;
}

/**
 * Fetches the claimed job's payload and re-computes its hash: a body that does not match the hash the
 * producer bound to the identity is never run. Throws for infrastructure or configuration errors (the message is redelivered).
 */
async function loadVerifiedPayload(sources: PayloadSources, claim: Claim): Promise<LoadedPayload> {
  let body: unknown;
  if (claim.payloadInline) {
    if (!sources.payloads) throw new ConfigurationError('inline payload but no payloads table is configured');
    const stored = await sources.payloads.read(claim.identity);
    if (!stored) return missing('inline payload body is absent (erased or never stored)');
    body = stored.body;
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
  return { ok: true, body };
}

function missing(message: string): LoadedPayload {
  return { ok: false, errorCode: 'payload_missing', message };
}

export { type LoadedPayload, loadVerifiedPayload, type PayloadResolver, type PayloadSources };
