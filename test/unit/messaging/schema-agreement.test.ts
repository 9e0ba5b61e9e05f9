import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../../lib/messaging/envelope.js';
import { producerVectors } from '../../support/producer-vectors.js';
import { ENVELOPE_SCHEMA_FILE } from '../../support/write-contract.js';

// The published schema (what a producer in any language validates with, here ajv on draft 2020-12) and the
// worker's own parser (parseEnvelope, what decides quarantine) must give the same verdict on every message body:
// valid envelopes, envelopes with one member wrong, and the edges (lengths at their bounds, astral characters, a
// wake-up carrying a body, numbers at their limits).

const published = JSON.parse(readFileSync(ENVELOPE_SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
const validate = new Ajv2020({ strict: true, allErrors: false }).compile(published);

const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const astral = fc.constantFrom('😀', '𝄞', '𠀀');
/** Strings near a bound of `max` characters, in ASCII, in astral characters (2 UTF-16 units each) or mixed. */
const nearBound = (max: number, first = 'a', rest = 'b') =>
  fc
    .tuple(fc.integer({ min: max - 2, max: max + 2 }), fc.constantFrom(first, rest))
    .map(([length, fill]) => `${first}${fill.repeat(Math.max(0, length - 1))}`);
const refs = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  nearBound(1024, 's', 'x'),
  fc
    .tuple(fc.integer({ min: 500, max: 1030 }), astral, fc.integer({ min: 0, max: 30 }))
    .map(([count, char, ascii]) => `${'r'.repeat(ascii)}${char.repeat(count)}`),
  fc.constantFrom('', '\ud800', 'a\ud800'.repeat(600), '😀'.repeat(1024), '😀'.repeat(513), `${'a'.repeat(1023)}😀`),
);
const ids = (max: number, extra: string) =>
  fc.oneof(
    { weight: 16, arbitrary: fc.stringMatching(new RegExp(`^[A-Za-z0-9][A-Za-z0-9${extra}]{0,10}$`)) },
    { weight: 2, arbitrary: nearBound(max) },
    { weight: 1, arbitrary: fc.constantFrom('', '-x', '.x', 'a#b', 'a b', 'é', 'a\n', `a${'😀'}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
const bodies = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom({ a: 1 }, [1, 2], null, '', 'x', 0, -0, 1.5, true, { nested: { deep: [null] } }),
);
const payloads = fc.oneof(
  { weight: 3, arbitrary: refs.map((ref) => ({ ref })) },
  { weight: 3, arbitrary: fc.constant({ inline: true }) },
  { weight: 3, arbitrary: bodies.map((body) => ({ body })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      { inline: false },
      { inline: 'true' },
      { ref: 'r', inline: true },
      { body: 1, inline: true },
      {},
      { ref: 5 },
      { other: 1 },
      null,
      [],
      'inline',
    ),
  },
);
const versions = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000 }),
  fc.constantFrom<unknown>(0, -1, 1.5, 1_000_001, 1e6, 1.0, '1', null, Number.MAX_SAFE_INTEGER),
);

/** One member of an envelope: usually valid, sometimes absent, sometimes any JSON value. */
const member = (field: string, valid: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 40, arbitrary: valid.map((value) => ({ [field]: value })) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }).map((value) => ({ [field]: value })) },
  );
const envelopes = fc
  .tuple(
    member(
      'v',
      fc.oneof(
        { weight: 20, arbitrary: fc.constant(1) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(2, 0, '1') },
      ),
    ),
    member('kind', fc.constantFrom<unknown>('job', 'wake', 'job', 'wake', 'Job', 'other', '')),
    member('tenantId', ids(64, '._-')),
    member('operationId', ids(256, '._:/=+@-')),
    member('jobType', ids(64, '._-')),
    fc.oneof(
      { weight: 2, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: versions.map((jobVersion) => ({ jobVersion })) },
    ),
    member(
      'payloadHash',
      fc.oneof(
        { weight: 5, arbitrary: hex },
        { weight: 1, arbitrary: fc.constantFrom('A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65)) },
      ),
    ),
    member('payload', payloads),
    fc.oneof(
      { weight: 20, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.constantFrom({ extra: 1 }, { Kind: 'job' }) },
    ),
  )
  .map((members) => Object.assign({}, ...members) as Record<string, unknown>);
/** Message bodies as JSON text: mostly envelopes, some any JSON value. */
const messageTexts = fc.oneof(
  { weight: 12, arbitrary: envelopes.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: envelopes.map((value) => JSON.stringify(value).replace(/^\{/, '{"__proto__":{},')) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value) ?? 'null') },
);

describe('the published envelope schema and the worker agree (ajv, draft 2020-12, against parseEnvelope)', () => {
  it('on every generated message body: the schema accepts exactly what the worker accepts', () => {
    const seen = { accepted: 0, refused: 0, wakeWithBody: 0 };
    fc.assert(
      fc.property(messageTexts, (text) => {
        const raw: unknown = JSON.parse(text);
        const worker = parseEnvelope(text).ok;
        expect(validate(raw), `schema vs worker on ${text.slice(0, 300)}`).toBe(worker);
        seen[worker ? 'accepted' : 'refused'] += 1;
        const shape = raw as { kind?: unknown; payload?: unknown };
        if (shape?.kind === 'wake' && typeof shape.payload === 'object' && shape.payload && 'body' in shape.payload)
          seen.wakeWithBody += 1;
      }),
      { numRuns: 4_000 },
    );
    // Both verdicts and the edge of issue #40 were exercised, not just one side.
    expect(seen.accepted).toBeGreaterThan(300);
    expect(seen.refused).toBeGreaterThan(300);
    expect(seen.wakeWithBody).toBeGreaterThan(20);
  });

  it('refuses a wake-up that carries a body, as the worker quarantines it (invalid_envelope)', () => {
    const wake = {
      v: 1,
      kind: 'wake',
      tenantId: 'acme',
      operationId: 'refund-r_815',
      jobType: 'refund-settlement',
      payloadHash: 'a'.repeat(64),
      payload: { body: { amount: 1 } },
    };
    const parsed = parseEnvelope(JSON.stringify(wake));

    expect(parsed.ok ? undefined : parsed.problem).toBe('invalid_envelope');
    expect(validate(wake)).toBe(false);
    expect(validate({ ...wake, kind: 'job' })).toBe(true);
  });

  it.each(producerVectors().envelopes.map((vector) => [vector.name, vector] as const))(
    'envelope vector %s (schema/test-vectors.json): the worker and the schema both give its verdict',
    (_name, vector) => {
      expect(parseEnvelope(vector.body).ok).toBe(vector.accepted);
      expect(validate(JSON.parse(vector.body))).toBe(vector.accepted);
    },
  );
});
