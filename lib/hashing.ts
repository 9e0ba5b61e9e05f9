import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { InvalidInputError } from './errors.js';
import type { JobIdentity } from './identity.js';

/** Largest canonical payload accepted, in bytes (the SQS message limit is 256 KiB; payloads may be stored inline). */
const MAX_PAYLOAD_BYTES = 256 * 1024;

/** A UTF-16 surrogate not part of a pair: RFC 8785 (I-JSON) forbids it, and it has no UTF-8 form. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Rejects anything JSON cannot represent faithfully: undefined, functions, symbols, bigint, NaN/Infinity, cycles. */
function assertJsonValue(value: unknown, path: string, seen: Set<object>): void {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) throw notJson(path, 'strings must be well-formed Unicode (lone surrogate)');
    return;
  }
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw notJson(path, 'numbers must be finite');
    return;
  }
  if (typeof value !== 'object') throw notJson(path, `${typeof value} is not a JSON value`);
  if (seen.has(value)) throw notJson(path, 'circular reference');
  seen.add(value);
  if (Array.isArray(value)) {
    for (const [index, element] of value.entries()) assertJsonValue(element, `${path}[${index}]`, seen);
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw notJson(path, 'only plain objects are JSON');
    for (const [key, element] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) throw notJson(path, 'keys must be well-formed Unicode (lone surrogate)');
      assertJsonValue(element, `${path}.${key}`, seen);
    }
  }
  seen.delete(value);
}

function notJson(path: string, message: string): InvalidInputError {
  return new InvalidInputError(`payload is not JSON-representable at ${path}: ${message}`, [{ path, message }]);
}

/** RFC 8785 canonical JSON of a payload. Throws InvalidInputError for non-JSON values or oversize payloads. */
function canonicalJson(payload: unknown): string {
  if (payload === undefined) throw notJson('payload', 'payload is required');
  assertJsonValue(payload, 'payload', new Set());
  const text = canonicalize(payload);
  if (text === undefined) throw notJson('payload', 'payload has no canonical form');
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw new InvalidInputError(`payload exceeds ${MAX_PAYLOAD_BYTES} bytes in canonical form`, [
      { path: 'payload', message: 'too large' },
    ]);
  }
  return text;
}

/** SHA-256 (hex) of the canonical JSON: key order and number spelling never change it. */
function payloadHash(payload: unknown): string {
  return sha256Hex(canonicalJson(payload));
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A short, stable pseudonym for an identifier in logs and metrics; the raw value never leaves the process. */
function hashIdentifier(value: string): string {
  return sha256Hex(`leasefence:${value}`).slice(0, 16);
}

/** Both parts of an identity pseudonymised for logs. */
function hashIdentity(identity: JobIdentity): { tenant: string; operation: string } {
  return { tenant: hashIdentifier(identity.tenantId), operation: hashIdentifier(identity.operationId) };
}

export { canonicalJson, hashIdentifier, hashIdentity, MAX_PAYLOAD_BYTES, payloadHash, sha256Hex };
