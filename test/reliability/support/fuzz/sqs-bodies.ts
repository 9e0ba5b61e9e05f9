import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { payloadHash } from '../../../../lib/hashing.js';
import { hostileValue, hugeString, poisonedString, wrongType } from './hostile-values.js';

/** A generated SQS body and what the worker must do with it. */
interface BodyCase {
  /** How the body was made (for the per-category counts). */
  category: string;
  body: string;
  /** Malformed by construction: the runtime must quarantine it at message level and write no work row. */
  malformed: boolean;
}

/** A valid envelope for `operationId` of `tenantId` (the base every structural mutation starts from). */
function validEnvelope(tenantId: string, operationId: string, jobType = 'demo'): Record<string, unknown> {
  return {
    v: 1,
    kind: 'job',
    tenantId,
    operationId,
    jobType,
    payloadHash: payloadHash({ order: operationId }),
    payload: { ref: `s3://payloads/${operationId}` },
  };
}

const FIELDS = ['v', 'kind', 'tenantId', 'operationId', 'jobType', 'payloadHash', 'payload'] as const;

/** True for the two payload shapes an envelope accepts: `{ ref: 1-1024 chars }` or `{ inline: true }`. */
function isAcceptedPayload(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  if (entries.length !== 1) return false;
  const [key, inner] = entries[0] as [string, unknown];
  return (
    (key === 'inline' && inner === true) ||
    (key === 'ref' && typeof inner === 'string' && inner.length >= 1 && [...inner].length <= 1_024)
  );
}

/** A value the `payload` field never accepts. */
const hostilePayload: fc.Arbitrary<unknown> = fc
  .oneof(
    hostileValue,
    fc.constant({}),
    fc.constant({ ref: '' }),
    hugeString.map((ref) => ({ ref })),
    wrongType.map((ref) => ({ ref })),
    fc.constantFrom({ inline: false }, { inline: 'true' }, { inline: 1 }, { ref: 's3://b/k', inline: true }),
    poisonedString.map((key) => ({ inline: true, [key]: 1 })),
  )
  .filter((value) => !isAcceptedPayload(value));

/** A value the `v` field never accepts (anything but the number 1). */
const hostileVersion: fc.Arbitrary<unknown> = fc
  .oneof(hostileValue, fc.constantFrom(0, 2, -1, 1.5, '1', 'v1', true, null, [1], { v: 1 }))
  .filter((value) => value !== 1);

/** Turns JSON escapes of control characters and lone surrogates back into the raw code units. */
function unescapeControls(text: string): string {
  return text.replace(/\\u(00[01][0-9a-f]|d[89a-f][0-9a-f]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** One field of a valid envelope replaced, removed, or joined by an unknown field. */
function mutatedEnvelope(tenantId: string): fc.Arbitrary<BodyCase> {
  return fc
    .tuple(
      fc.constantFrom(...FIELDS),
      fc.constantFrom('replace', 'replace', 'replace', 'remove', 'extra'),
      hostileValue,
      hostilePayload,
      hostileVersion,
      fc.constantFrom('__proto__', 'constructor', 'payloadBody', 'Tenantid', 'v2'),
      fc.boolean(),
    )
    .map(([field, how, value, payload, version, extra, raw]) => {
      const envelope = validEnvelope(tenantId, `fz-new-${field}`);
      if (how === 'remove') delete envelope[field];
      else if (how === 'extra') Object.defineProperty(envelope, extra, { value: 1, enumerable: true });
      else envelope[field] = field === 'payload' ? payload : field === 'v' ? version : value;
      const text = JSON.stringify(envelope);
      // Raw variant: control characters and lone surrogates as they are, not escaped.
      const body = raw ? unescapeControls(text) : text;
      return { category: `field:${field}:${how}${raw ? ':raw' : ''}`, body, malformed: true };
    });
}

/** Text-level tampering of a valid envelope: truncation, prefixes, trailing junk, duplicate keys, depth bombs. */
function tamperedText(tenantId: string): fc.Arbitrary<BodyCase> {
  const text = JSON.stringify(validEnvelope(tenantId, 'fz-tampered'));
  return fc
    .oneof(
      fc.nat({ max: text.length - 1 }).map((cut) => ({ category: 'text:truncated', body: text.slice(0, cut) })),
      fc
        .constantFrom('\ufeff', ' \u0000', 'x', ")]}'\n")
        .map((prefix) => ({ category: 'text:prefix', body: prefix + text })),
      fc
        .constantFrom('x', ',', '}', '\u0000', '{}')
        .map((suffix) => ({ category: 'text:suffix', body: text + suffix })),
      poisonedString.map((bad) => ({
        category: 'text:duplicate-key',
        body: text.replace(/}$/, `,"tenantId":${JSON.stringify(bad)}}`),
      })),
      fc.constantFrom(64, 5_000, 200_000).map((depth) => ({
        category: 'text:depth',
        body: `{"v":1,"kind":"job","payload":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      })),
    )
    .map((generated) => ({ ...generated, malformed: true }));
}

/**
 * Bodies carried in the message that must never be stored: hostile values and types under a hash they do not
 * have, a body beside a ref or an inline flag, a wake carrying one, and bodies above the payload cap (their true
 * hash, computed here: the library refuses to hash them). Each is quarantined as a message, nothing stored.
 */
function carriedBody(tenantId: string): fc.Arbitrary<BodyCase> {
  const base = (operationId: string) => validEnvelope(tenantId, operationId);
  return fc
    .oneof(
      hostileValue.map((body) => ({
        category: 'carried:hostile-wrong-hash',
        body: JSON.stringify({ ...base('fz-carried-h'), payload: { body } }),
      })),
      fc.constantFrom({ ref: 's3://b/k' }, { inline: true }).map((other) => ({
        category: 'carried:both-fields',
        body: JSON.stringify({ ...base('fz-carried-b'), payload: { body: { order: 'fz-carried-b' }, ...other } }),
      })),
      fc.constant({
        category: 'carried:wake',
        body: JSON.stringify({ ...base('fz-carried-w'), kind: 'wake', payload: { body: { order: 'fz-carried-w' } } }),
      }),
      fc.constant({
        category: 'carried:wrong-hash',
        body: JSON.stringify({ ...base('fz-carried-x'), payload: { body: { order: 'another' } } }),
      }),
      fc.constantFrom(262_145, 400_000).map((size) => {
        const body = { order: 'x'.repeat(size) };
        const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
        return {
          category: 'carried:too-large',
          body: JSON.stringify({ ...base('fz-carried-l'), payloadHash: hash, payload: { body } }),
        };
      }),
    )
    .map((generated) => ({ ...generated, malformed: true }));
}

/** Anything at all: arbitrary text (any code units), arbitrary JSON values and objects. */
const arbitraryBody: fc.Arbitrary<BodyCase> = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 300 }).map((body) => ({ category: 'any:text', body })),
    fc.jsonValue().map((value) => ({ category: 'any:json', body: JSON.stringify(value) ?? 'null' })),
    fc.object().map((value) => ({ category: 'any:object', body: JSON.stringify(value) })),
  )
  .map((generated) => ({ ...generated, malformed: true }));

/**
 * Valid envelopes aimed at pre-existing rows (same hash: replay; other hash or job type: conflict; wake)
 * and at new identities without a stored payload. Not malformed: they may claim or create, never mutate
 * a seeded row.
 */
function aimedEnvelope(tenantId: string, seededOperations: readonly string[]): fc.Arbitrary<BodyCase> {
  return fc
    .tuple(
      fc.constantFrom(...seededOperations, 'fz-fresh-a', 'fz-fresh-b'),
      fc.constantFrom('replay', 'conflict', 'type', 'wake', 'unregistered'),
    )
    .map(([operationId, aim]) => {
      const envelope = validEnvelope(tenantId, operationId);
      if (aim === 'conflict') envelope.payloadHash = payloadHash({ order: `${operationId}-changed` });
      if (aim === 'type') envelope.jobType = 'other-type';
      if (aim === 'wake') envelope.kind = 'wake';
      if (aim === 'unregistered') envelope.jobType = 'teleport';
      return { category: `aimed:${aim}`, body: JSON.stringify(envelope), malformed: false };
    });
}

/** The body generator: mostly malformed, some adversarial valid envelopes. */
function bodyArbitrary(tenantId: string, seededOperations: readonly string[]): fc.Arbitrary<BodyCase> {
  return fc.oneof(
    { weight: 5, arbitrary: mutatedEnvelope(tenantId) },
    { weight: 2, arbitrary: tamperedText(tenantId) },
    { weight: 2, arbitrary: arbitraryBody },
    { weight: 1, arbitrary: aimedEnvelope(tenantId, seededOperations) },
    { weight: 1, arbitrary: carriedBody(tenantId) },
  );
}

export { type BodyCase, bodyArbitrary, validEnvelope };
