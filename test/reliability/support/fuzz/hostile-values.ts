import fc from 'fast-check';

/**
 * Values that no identifier, job type, hash, reference or enum of leasefence may accept. Each string
 * carries at least one character outside every allowed charset (all are ASCII letters, digits and a few
 * of `._:/=+@-`), or a length no field allows, so a request built with one is malformed by construction.
 */

/** Characters no identifier allows: the key delimiter, controls, spaces, bidi and zero-width marks, lookalikes. */
const POISON = [
  '#',
  '\u0000',
  '\u0007',
  '\n',
  '\r',
  '\t',
  '\u001f',
  '\u007f',
  ' ',
  '\u00a0',
  '\u202e', // right-to-left override
  '\u200b', // zero-width space
  '\u200d', // zero-width joiner
  '\ufeff', // byte-order mark
  '\u0430', // Cyrillic a, looks like a
  '\uff41', // fullwidth a
  '\u0301', // combining acute accent (NFD)
  'é',
  '\u{1f600}',
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '%',
  '"',
  '\\',
  '<',
  '*',
  '?',
] as const;

/** An otherwise plausible id with poison spliced in somewhere. */
const poisonedString: fc.Arbitrary<string> = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/),
    fc.array(fc.constantFrom(...POISON), { minLength: 1, maxLength: 3 }),
    fc.nat(),
  )
  .map(([base, poison, at]) => {
    const cut = base.length === 0 ? 0 : at % (base.length + 1);
    return `${base.slice(0, cut)}${poison.join('')}${base.slice(cut)}`;
  });

/**
 * Longer than any field allows, counted in code points (zod counts code points; the longest field, payloadRef,
 * takes 1,024), up to past the SQS body limit.
 */
const hugeString: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(1_025, 4_096, 70_000, 270_000), fc.constantFrom('a', 'Z', '#', '\u00e9', '\u{1f600}'))
  .map(([length, codePoint]) => codePoint.repeat(length));

/** Any JSON value that is not a string. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

/** A string no identifier field accepts, or a value of the wrong type. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: poisonedString },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: hugeString },
  { weight: 3, arbitrary: wrongType },
);

export { hostileValue, hugeString, POISON, poisonedString, wrongType };
