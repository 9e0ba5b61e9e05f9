import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { parseRecordWrite, recordWriteSchemaFor } from '../../../lib/fenced/record-requests.js';
import { checkSimpleRecordWrite } from '../../../lib/fenced/record-write-check.js';
import { parseInput } from '../../../lib/internal/validation.js';
import { tableNameSchema } from '../../../lib/rules.js';

// The one-pass check of a fenced write's common shapes must be exactly as strict as the full schema: whatever it
// accepts, the schema accepts with the same result; whatever it declines goes to the schema. Generated writes mix
// valid shapes with every way each field can be wrong or unusual.

/** An object with an own `__proto__` key (as JSON.parse makes one), plus `rest`. */
const withOwnProto = (rest: Record<string, unknown>) => Object.assign(JSON.parse('{"__proto__":{"x":1}}'), rest);
class Row {
  pk = 'a';
}
const nullPrototype = (rest: Record<string, unknown>) => Object.assign(Object.create(null), rest);
const withHidden = (rest: Record<string, unknown>) =>
  Object.defineProperty({ ...rest }, 'hidden', { value: 1, enumerable: false });
const withSymbol = (rest: Record<string, unknown>) => ({ ...rest, [Symbol('s')]: 1 });

const tableName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>('records', 'my.table-1') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('ab', 'bad name', '', 5, 'x'.repeat(256)) },
);
const name = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('status', 'amountCents', 'steps.publish', 'a.b') },
  { weight: 2, arbitrary: fc.constantFrom('pk', 'sk', 'pk.inner') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '1bad',
      'a..b',
      'writer_epoch',
      'writer_token.x',
      '__proto__',
      'constructor',
      'x'.repeat(256),
    ),
  },
);
const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const dictionary = fc.dictionary(name, value, { maxKeys: 5 });
/** An object of attributes, plain or in one of the shapes a schema treats specially. */
const attributes = (base: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof(
    { weight: 6, arbitrary: base },
    { weight: 1, arbitrary: base.map(withOwnProto) },
    { weight: 1, arbitrary: base.map(nullPrototype) },
    { weight: 1, arbitrary: base.map(withHidden) },
    { weight: 1, arbitrary: base.map(withSymbol) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], new Map(), new Row(), 'x', { constructor: () => 1 }) },
  );
const key = attributes(
  fc.oneof(
    fc.constant({ pk: 'a' }),
    fc.constant({ pk: 'a', sk: 'b' }),
    fc.constant({}),
    fc.constant({ a: 1, b: 2, c: 3 }),
    fc.constant({ '': 'a' }),
    dictionary,
  ),
);
const manyAttributes = fc
  .integer({ min: 99, max: 102 })
  .map((count) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`a${index}`, index])));
const set = attributes(fc.oneof({ weight: 5, arbitrary: dictionary }, { weight: 1, arbitrary: manyAttributes }));
const writeId = fc.constantFrom<unknown>('w1', 'x'.repeat(200), 'x'.repeat(201), '', 5, undefined);
/** Optional members: absent (two times in three), or present with a generated value. */
const optional = <T>(field: string, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<Record<string, unknown>> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: arbitrary.map((generated) => ({ [field]: generated })) },
  );
const ref = fc
  .tuple(tableName, key, optional('extra', fc.constant(1)))
  .map(([table, recordKey, extra]) => ({ tableName: table, key: recordKey, ...extra }));
const refs = fc.oneof(
  { weight: 8, arbitrary: ref },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, { tableName: 'records' }) },
);
const put = fc
  .tuple(refs, attributes(dictionary), optional('writeId', writeId), optional('where', fc.constant({ status: 'a' })))
  .map(([recordRef, item, id, where]) => ({ kind: 'put', ref: recordRef, item, ...id, ...where }));
const change = fc
  .tuple(
    optional('set', set),
    optional('writeId', writeId),
    optional('remove', fc.constantFrom(['status'], ['pk'])),
    optional('where', fc.constant({ status: 'a' })),
    optional('extra', fc.constant(1)),
  )
  .map((parts) => Object.assign({}, ...parts));
const update = fc
  .tuple(refs, fc.oneof({ weight: 8, arbitrary: change }, { weight: 1, arbitrary: fc.constantFrom<unknown>(null, []) }))
  .map(([recordRef, recordChange]) => ({ kind: 'update', ref: recordRef, change: recordChange }));
const writes = fc.oneof(
  { weight: 5, arbitrary: put },
  { weight: 5, arbitrary: update },
  {
    weight: 1,
    arbitrary: fc.tuple(put, fc.constantFrom('other', undefined)).map(([write, kind]) => ({ ...write, kind })),
  },
  { weight: 1, arbitrary: put.map((write) => ({ ...write, extra: true })) },
);

/** What parsing a write with the full schema gives: its result, or its typed error's message and issues. */
function fullVerdict(write: unknown): unknown {
  try {
    return { ok: parseInput(recordWriteSchemaFor(write), write, 'fenced record write') };
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return { refused: (error as InvalidInputError).message, issues: (error as InvalidInputError).issues };
  }
}

function verdict(write: unknown): unknown {
  try {
    return { ok: parseRecordWrite(write, { kind: 'advance' }).write };
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return { refused: (error as InvalidInputError).message, issues: (error as InvalidInputError).issues };
  }
}

describe('the one-pass check of a fenced write (exactly as strict as the schema)', () => {
  it('accepts only what the schema accepts, returning exactly what the schema returns', () => {
    const accepted = { put: 0, update: 0 };
    fc.assert(
      fc.property(writes, (write) => {
        const checked = checkSimpleRecordWrite(write);
        if (checked === undefined) return;
        accepted[checked.kind] += 1;
        const full = recordWriteSchemaFor(write).safeParse(write);
        expect(full.success).toBe(true);
        expect(checked).toStrictEqual(full.data);
      }),
      // 9,000 runs: about 87 updates accepted on average (sd ~9). At 3,000 (~29, sd ~5) the floor of 20 below failed
      // in about one run in thirty, by chance alone.
      { numRuns: 9_000 },
    );
    // Both shapes were exercised, not only declined.
    expect(accepted.put).toBeGreaterThan(20);
    expect(accepted.update).toBeGreaterThan(20);
  });

  it('parseRecordWrite gives the same result or the same typed error as the schema alone, for any write', () => {
    fc.assert(
      fc.property(writes, (write) => {
        expect(verdict(write)).toStrictEqual(fullVerdict(write));
      }),
      { numRuns: 1_000 },
    );
  });

  it('takes the one pass for the shapes a job writes on every run, and copies what the schema copies', () => {
    const key = { pk: 'record#1' };
    const item = { writtenBy: 'leasefence', amountCents: 125 };
    const checkedPut = checkSimpleRecordWrite({ kind: 'put', ref: { tableName: 'records', key }, item });
    expect(checkedPut).toStrictEqual({ kind: 'put', ref: { tableName: 'records', key }, item });
    expect(checkedPut?.ref.key).not.toBe(key);
    expect(checkedPut?.kind === 'put' && checkedPut.item).not.toBe(item);
    const set = { status: 'sent', 'steps.publish': 1 };
    const checkedUpdate = checkSimpleRecordWrite({
      kind: 'update',
      ref: { tableName: 'records', key },
      change: { set, writeId: 'w1' },
    });
    expect(checkedUpdate).toStrictEqual({
      kind: 'update',
      ref: { tableName: 'records', key },
      change: { set, writeId: 'w1' },
    });
    expect(checkedUpdate?.kind === 'update' && checkedUpdate.change.set).not.toBe(set);
  });

  it('leaves a business condition, a removal or an unknown member to the schema', () => {
    const ref = { tableName: 'records', key: { pk: 'a' } };
    expect(checkSimpleRecordWrite({ kind: 'put', ref, item: {}, where: { status: 'a' } })).toBeUndefined();
    expect(checkSimpleRecordWrite({ kind: 'update', ref, change: { remove: ['status'] } })).toBeUndefined();
    expect(checkSimpleRecordWrite({ kind: 'update', ref, change: { set: { a: 1 } }, extra: 1 })).toBeUndefined();
  });

  it('checks a table name with the schema once, however many writes name it', () => {
    const check = vi.spyOn(tableNameSchema, 'safeParse');
    try {
      for (let index = 0; index < 10; index += 1) {
        const ref = { tableName: 'records-named-once', key: { pk: `a${index}` } };
        parseRecordWrite({ kind: 'put', ref, item: { n: index } }, { kind: 'advance' });
        parseRecordWrite({ kind: 'update', ref, change: { set: { n: index } } }, { kind: 'advance' });
      }
      expect(check).toHaveBeenCalledTimes(1);
    } finally {
      check.mockRestore();
    }
  });
});
