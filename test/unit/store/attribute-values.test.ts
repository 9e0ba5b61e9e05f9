import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toAttributeMap } from '../../../lib/store/driver/attribute-values.js';

/** What a call did: the attribute map, or the error message it threw. */
function outcomeOf(run: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

class Money {
  constructor(readonly cents: number) {}
}

/** Values of every kind the library distinguishes, the odd ones included. */
const anyValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.constant(''),
    fc.double(),
    fc.integer(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2, 1e300, -0, Number.NaN),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant(() => 1),
    fc.bigInt(),
    fc.uint8Array({ maxLength: 3 }),
    fc.constant(new Set(['a', 'b'])),
    fc.constant(new Set<number>()),
    fc.constant(new Map([['k', 1]])),
    fc.constant(new Money(5)),
    fc.constant(NumberValue.from('12345678901234567890')),
    fc.constant({ constructor: 'not a function' }),
    fc.constant(Object.assign(Object.create(null), { bare: 1 })),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.sparseArray(fc.integer(), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const options = fc.record({
  removeUndefinedValues: fc.boolean(),
  convertEmptyValues: fc.boolean(),
  convertClassInstanceToMap: fc.boolean(),
  allowImpreciseNumbers: fc.boolean(),
});

describe('toAttributeMap', () => {
  it('marshalls exactly as util-dynamodb does, and throws where it throws, for any value and options', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 5 }),
        options,
        fc.boolean(),
        (item, chosen, topLevel) => {
          // lib-dynamodb may have set convertTopLevelContainer on the client's shared options: an item stays a map.
          const ours = outcomeOf(() => toAttributeMap(item, { ...chosen, convertTopLevelContainer: topLevel }));
          const library = outcomeOf(() => marshall(item, { ...chosen, convertTopLevelContainer: false }));
          expect(ours).toEqual(library);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('converts a work row of the store field by field', () => {
    // prepare: the shapes the store writes (strings, numbers, booleans, an empty map, a list of maps)
    const row = { pk: 'acme#3', fence: 2, effectMayHaveHappened: true, steps: {}, ah: [{ o: 'w1', s: 10, f: 1 }] };

    // act
    const attributes = toAttributeMap(row, { removeUndefinedValues: true });

    // assert
    expect(attributes).toEqual({
      pk: { S: 'acme#3' },
      fence: { N: '2' },
      effectMayHaveHappened: { BOOL: true },
      steps: { M: {} },
      ah: { L: [{ M: { o: { S: 'w1' }, s: { N: '10' }, f: { N: '1' } } }] },
    });
  });

  it('hands a class instance to the library, which refuses it unless told to convert it', () => {
    // prepare
    const item = { amount: new Money(5) };

    // act + assert
    expect(() => toAttributeMap(item, {})).toThrow(/convertClassInstanceToMap/);
    expect(toAttributeMap(item, { convertClassInstanceToMap: true })).toEqual({ amount: { M: { cents: { N: '5' } } } });
  });
});
