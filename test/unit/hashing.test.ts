import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, InvalidInputError } from '../../lib/errors.js';
import {
  canonicalJson,
  DEVELOPMENT_IDENTIFIER_KEY,
  hashIdentifier,
  hashIdentity,
  MAX_PAYLOAD_BYTES,
  payloadHash,
  sha256Hex,
  stableBucket,
} from '../../lib/hashing.js';
import { expectThrown } from '../support/expectations.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('canonicalJson (RFC 8785)', () => {
  it('orders object keys by UTF-16 code units, not by code point or insertion order', () => {
    // Prepare: keys inserted out of order; U+1F600 is the surrogate pair D83D DE00, which sorts before U+FB33.
    const payload = {
      '\u20ac': 'euro',
      '\r': 'carriage return',
      '\ufb33': 'dalet with dagesh',
      '1': 'one',
      '\ud83d\ude00': 'grinning face',
      '\u0080': 'padding character',
      '\u00f6': 'o umlaut',
    };

    // Act
    const text = canonicalJson(payload);

    // Assert
    expect(text).toBe(
      '{"\\r":"carriage return","1":"one","\u0080":"padding character","\u00f6":"o umlaut",' +
        '"\u20ac":"euro","\ud83d\ude00":"grinning face","\ufb33":"dalet with dagesh"}',
    );
  });

  it.each([
    ['1E30', '1e+30'],
    ['1e21', '1e+21'],
    ['1e20', '100000000000000000000'],
    ['4.50', '4.5'],
    ['2e-3', '0.002'],
    ['0.002', '0.002'],
    ['1E-7', '1e-7'],
    ['1e-6', '0.000001'],
    ['-0', '0'],
    ['-0.0', '0'],
    ['100', '100'],
    ['1.0e2', '100'],
    ['333333333.33333329', '333333333.3333333'],
    ['9007199254740993', '9007199254740992'],
    ['5e-324', '5e-324'],
    ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ['-1.5E-9', '-1.5e-9'],
  ])('serialises the number spelled %s as %s (ECMAScript Number-to-String)', (spelling, expected) => {
    expect(canonicalJson(JSON.parse(spelling))).toBe(expected);
  });

  it('escapes only quote, backslash and control characters; other characters stay literal UTF-8', () => {
    const payload = ['\u0000\u0007\u001f', '\b\t\n\f\r', '"\\', '/', '\u007f\u00e9\u2028\u20ac\ud83d\ude00'];

    const text = canonicalJson(payload);

    expect(text).toBe(
      '["\\u0000\\u0007\\u001f","\\b\\t\\n\\f\\r","\\"\\\\","/","\u007f\u00e9\u2028\u20ac\ud83d\ude00"]',
    );
  });

  it('keeps array order, sorts nested objects, and emits no whitespace', () => {
    const payload = { z: [3, 1, { b: true, a: null }], a: { y: false, x: 'text' } };

    expect(canonicalJson(payload)).toBe('{"a":{"x":"text","y":false},"z":[3,1,{"a":null,"b":true}]}');
  });

  it('accepts a payload of exactly the byte limit and rejects one byte more, counting UTF-8 bytes', () => {
    const twoByteChars = (MAX_PAYLOAD_BYTES - 2) / 2; // canonical form adds two quotes
    const atLimit = '\u00e9'.repeat(twoByteChars);

    expect(Buffer.byteLength(canonicalJson(atLimit), 'utf8')).toBe(MAX_PAYLOAD_BYTES);
    const error = expectThrown(() => canonicalJson(`${atLimit}a`), InvalidInputError);
    expect(error.issues).toEqual([{ path: 'payload', message: 'too large' }]);
  });
});

describe('payloadHash', () => {
  it('is the SHA-256 hex of the canonical JSON', () => {
    expect(payloadHash({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(payloadHash({ b: [1, 'x'], a: 2 })).toBe(sha256('{"a":2,"b":[1,"x"]}'));
  });

  it('does not change with key order or number spelling', () => {
    const first = JSON.parse('{"amount":4.50,"account":{"id":"acc-1","limit":1E3},"tags":["a","b"]}');
    const second = JSON.parse('{"tags":["a","b"],"account":{"limit":1000,"id":"acc-1"},"amount":4.5}');

    expect(payloadHash(first)).toBe(payloadHash(second));
  });

  it('changes when a value, an array order or a key changes', () => {
    const base = payloadHash({ amount: 10, tags: ['a', 'b'] });

    expect(payloadHash({ amount: 11, tags: ['a', 'b'] })).not.toBe(base);
    expect(payloadHash({ amount: 10, tags: ['b', 'a'] })).not.toBe(base);
    expect(payloadHash({ amount: 10, tag: ['a', 'b'] })).not.toBe(base);
    expect(payloadHash({ amount: '10', tags: ['a', 'b'] })).not.toBe(base);
  });

  it('is invariant under any permutation of the keys of random JSON objects (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer(), (payload, seed) => {
        const permuted = permuteKeys(payload, seed);
        expect(payloadHash(permuted)).toBe(payloadHash(payload));
      }),
      { numRuns: 300 },
    );
  });

  it('writes exactly what the canonicalize package (RFC 8785 reference) writes, for any JSON value (property)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.dictionary(
          fc.string({ unit: 'binary' }).filter((key) => key.isWellFormed()),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
        ),
        (value, numbers) => {
          expect(canonicalJson(value)).toBe(canonicalize(value));
          expect(canonicalJson(numbers)).toBe(canonicalize(numbers));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('round-trips: the canonical text parses back to a value with the same canonical text (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (payload) => {
        const text = canonicalJson(payload);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('payload validation', () => {
  class Money {
    constructor(readonly cents: number) {}
  }
  const cyclic: Record<string, unknown> = { name: 'loop' };
  cyclic.self = cyclic;
  // biome-ignore lint/suspicious/noSparseArray: a hole is exactly what is tested
  const sparse = [1, , 3];

  it.each<[string, unknown, string]>([
    ['undefined payload', undefined, 'payload'],
    ['undefined field', { amount: undefined }, 'payload.amount'],
    ['NaN', { amount: Number.NaN }, 'payload.amount'],
    ['Infinity', { amount: Number.POSITIVE_INFINITY }, 'payload.amount'],
    ['-Infinity', { limits: [1, Number.NEGATIVE_INFINITY] }, 'payload.limits[1]'],
    ['BigInt', { amount: 10n }, 'payload.amount'],
    ['function', { callback: () => 1 }, 'payload.callback'],
    ['symbol', { tag: Symbol('x') }, 'payload.tag'],
    ['cycle', cyclic, 'payload.self'],
    ['class instance', { price: new Money(5) }, 'payload.price'],
    ['Date', { at: new Date(0) }, 'payload.at'],
    ['Map', { index: new Map() }, 'payload.index'],
    ['array hole', { list: sparse }, 'payload.list[1]'],
    ['lone surrogate in a value', { note: 'x\ud800y' }, 'payload.note'],
  ])('rejects %s with InvalidInputError naming the field', (_label, payload, path) => {
    const error = expectThrown(() => payloadHash(payload), InvalidInputError);

    expect(error.code).toBe('input.invalid');
    expect(error.issues.map((issue) => issue.path)).toEqual([path]);
  });

  it('rejects a key holding a lone surrogate', () => {
    const error = expectThrown(() => payloadHash({ '\udc00key': 1 }), InvalidInputError);

    expect(error.issues).toEqual([{ path: 'payload', message: expect.stringContaining('lone surrogate') }]);
  });

  it('accepts the same object referenced twice (a DAG is not a cycle)', () => {
    const shared = { currency: 'EUR' };

    expect(canonicalJson({ from: shared, to: shared })).toBe('{"from":{"currency":"EUR"},"to":{"currency":"EUR"}}');
  });

  it('accepts objects without a prototype', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: 2 });

    expect(canonicalJson(bare)).toBe('{"a":2,"b":1}');
  });
});

describe('hashIdentifier (keyed)', () => {
  const key = 'deployment-key-0123456789abcdef';
  const otherKey = 'another-deployment-key-fedcba98';

  it('is stable under one key, short and never contains the raw value', () => {
    const hashed = hashIdentifier('tenant-secret-name', key);

    expect(hashed).toBe(hashIdentifier('tenant-secret-name', key));
    expect(hashed).toMatch(/^[0-9a-f]{16}$/);
    expect(hashed).not.toContain('tenant');
    expect(hashIdentifier('tenant-secret-namf', key)).not.toBe(hashed);
  });

  it('hashes the same id differently under two keys', () => {
    expect(hashIdentifier('acme', key)).not.toBe(hashIdentifier('acme', otherKey));
    expect(hashIdentifier('acme', Buffer.from(key))).toBe(hashIdentifier('acme', key));
  });

  it('a guessed id cannot be confirmed from a log line without the key', () => {
    // A log line under the deployment key; an attacker hashes guesses every way that needs no key.
    const logged = hashIdentifier('acme', key);
    const guesses = ['acme', 'leasefence:acme'].flatMap((guess) => [
      sha256Hex(guess).slice(0, 16),
      sha256Hex(`leasefence:${guess}`).slice(0, 16),
      hashIdentifier(guess, DEVELOPMENT_IDENTIFIER_KEY),
      hashIdentifier(guess, otherKey),
    ]);
    expect(guesses).not.toContain(logged);
    // With the key the operator can still look an id up.
    expect(hashIdentifier('acme', key)).toBe(logged);
  });

  it('refuses a key shorter than 16 bytes', () => {
    expect(() => hashIdentifier('acme', 'short')).toThrow(ConfigurationError);
  });

  it('pseudonymises both parts of an identity independently', () => {
    const hashed = hashIdentity({ tenantId: 'acme', operationId: 'acme' }, key);

    expect(hashed.tenant).toBe(hashed.operation);
    expect(hashed.tenant).toBe(hashIdentifier('acme', key));
  });
});

describe('sha256Hex', () => {
  it('is SHA-256 of the UTF-8 text, the same as a Hash object on any string', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(sha256(text));
      }),
      { numRuns: 500 },
    );
  });
});

describe('stableBucket (deadline shards)', () => {
  it('keeps the shard assignment of rows written before identifier hashes were keyed', () => {
    // The pre-HMAC pseudonym, whose first 8 hex chars chose the shard: unchanged, so stored rows stay valid.
    expect(stableBucket('acme\u0000op-1')).toBe(Number.parseInt(sha256('leasefence:acme\u0000op-1').slice(0, 8), 16));
  });
});

/** Rebuilds `value` with every object's keys inserted in a seed-determined order (deeply). */
function permuteKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((element, index) => permuteKeys(element, seed + index));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  let state = seed >>> 0;
  for (let index = entries.length - 1; index > 0; index -= 1) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const other = state % (index + 1);
    const current = entries[index];
    const swapped = entries[other];
    if (current === undefined || swapped === undefined) continue;
    entries[index] = swapped;
    entries[other] = current;
  }
  return Object.fromEntries(entries.map(([key, element]) => [key, permuteKeys(element, seed ^ key.length)]));
}
