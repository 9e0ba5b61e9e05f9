import * as nodeCrypto from 'node:crypto';
import { createHash, createHmac } from 'node:crypto';
import { ConfigurationError, InvalidInputError } from './errors.js';
import type { JobIdentity } from './identity.js';

/**
 * Largest canonical payload accepted, in bytes, on every path (stored, by ref, carried in the message). Of the two
 * limits a carried body meets, the payloads table's 400 KB item binds before SQS's 1 MiB message; this cap sits
 * below both (room for the row's keys and hash), so a payload accepted anywhere also travels inline.
 */
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
  const text = canonicalText(payload, []);
  if (text === undefined) {
    // The one-pass writer only says "not JSON"; the slower check finds where and why, for the error.
    if (payload === undefined) throw notJson('payload', 'payload is required');
    assertJsonValue(payload, 'payload', new Set());
    throw notJson('payload', 'payload has no canonical form');
  }
  if (text.length > MAX_PAYLOAD_BYTES / 3 && Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw new InvalidInputError(`payload exceeds ${MAX_PAYLOAD_BYTES} bytes in canonical form`, [
      { path: 'payload', message: 'too large' },
    ]);
  }
  return text;
}

/**
 * RFC 8785 serialisation in one pass, or undefined for anything assertJsonValue rejects. Strings and numbers
 * are written as ECMAScript's JSON.stringify writes them (which is what RFC 8785 specifies), object keys in
 * UTF-16 code-unit order (Array.prototype.sort's default). Hand-written rather than the `canonicalize`
 * package plus a separate validation walk: one walk halves the payload check on the worker's hot path.
 */
function canonicalText(value: unknown, ancestors: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return value.isWellFormed() ? JSON.stringify(value) : undefined;
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (ancestors.includes(value)) return undefined;
      return Array.isArray(value) ? canonicalArray(value, ancestors) : canonicalObject(value, ancestors);
    default:
      return undefined;
  }
}

function canonicalArray(list: readonly unknown[], ancestors: object[]): string | undefined {
  ancestors.push(list);
  let text = '[';
  for (let index = 0; index < list.length; index += 1) {
    const element = canonicalText(list[index], ancestors);
    if (element === undefined) return undefined;
    text += index === 0 ? element : `,${element}`;
  }
  ancestors.pop();
  return `${text}]`;
}

function canonicalObject(record: object, ancestors: object[]): string | undefined {
  const prototype = Object.getPrototypeOf(record);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  ancestors.push(record);
  const keys = Object.keys(record).sort();
  let text = '{';
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    if (!key.isWellFormed()) return undefined;
    const element = canonicalText((record as Record<string, unknown>)[key], ancestors);
    if (element === undefined) return undefined;
    text += `${index === 0 ? '' : ','}${JSON.stringify(key)}:${element}`;
  }
  ancestors.pop();
  return `${text}}`;
}

/** SHA-256 (hex) of the canonical JSON: key order and number spelling never change it. */
function payloadHash(payload: unknown): string {
  return sha256Hex(canonicalJson(payload));
}

// crypto.hash (Node 20.12+, every Lambda runtime) skips the Hash object: over twice as fast for the short
// strings a job hashes several times (keys, shards, writer pseudonyms). Older Node 20 falls back to createHash.
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** SHA-256 (hex) of the UTF-8 text. */
function sha256Hex(text: string): string {
  return oneShotHash ? oneShotHash('sha256', text, 'hex') : createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The deployment's secret for pseudonyms in logs and metrics: at least 16 bytes (a string counts its UTF-8). */
type IdentifierKey = string | Uint8Array;

/**
 * The fixed key of the local stack and tests. NOT secret: anyone can confirm a guessed id against a log
 * line hashed with it. Deployments read theirs from Secrets Manager (see lib/lambda/identifier-key.ts).
 */
const DEVELOPMENT_IDENTIFIER_KEY = 'leasefence-development-identifier-key (not secret)';

const MIN_KEY_BYTES = 16;

/**
 * A short, stable pseudonym for an identifier in logs and metrics: HMAC-SHA-256 under the deployment's key,
 * 16 hex chars. Without the key a log line cannot confirm a guessed id. Throws ConfigurationError for a
 * key shorter than 16 bytes.
 */
function hashIdentifier(value: string, key: IdentifierKey): string {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  if (bytes.length < MIN_KEY_BYTES) {
    throw new ConfigurationError(`the identifier hash key must be at least ${MIN_KEY_BYTES} bytes`);
  }
  return createHmac('sha256', bytes).update(`leasefence:${value}`, 'utf8').digest('hex').slice(0, 16);
}

/** Both parts of an identity pseudonymised for logs, under the deployment's key. */
function hashIdentity(identity: JobIdentity, key: IdentifierKey): { tenant: string; operation: string } {
  return { tenant: hashIdentifier(identity.tenantId, key), operation: hashIdentifier(identity.operationId, key) };
}

/** The identifier key, or a getter for one loaded later (undefined while it is not: identities are withheld). */
type IdentifierKeySource = IdentifierKey | (() => IdentifierKey | undefined);

/** An identity as keyed hashes, or `withheld` when no key is available yet (never the raw value). */
function pseudonyms(identity: JobIdentity, source: IdentifierKeySource): { tenant: string; operation: string } {
  const key = typeof source === 'function' ? source() : source;
  return key === undefined ? { tenant: 'withheld', operation: 'withheld' } : hashIdentity(identity, key);
}

/**
 * An unkeyed, stable number for spreading keys over buckets (deadline shards). Same value everywhere and
 * forever, which is why it must never be logged as a pseudonym (use hashIdentifier).
 */
function stableBucket(value: string): number {
  return Number.parseInt(sha256Hex(`leasefence:${value}`).slice(0, 8), 16);
}

export {
  canonicalJson,
  DEVELOPMENT_IDENTIFIER_KEY,
  hashIdentifier,
  hashIdentity,
  type IdentifierKey,
  type IdentifierKeySource,
  MAX_PAYLOAD_BYTES,
  payloadHash,
  pseudonyms,
  sha256Hex,
  stableBucket,
};
