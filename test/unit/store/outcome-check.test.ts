import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/internal/validation.js';
import { jobOutcomeSchema, outcomeCodeSchema } from '../../../lib/rules.js';
import { checkPlainOutcome } from '../../../lib/store/work-items/outcome-check.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';

// The one-pass check of `{ outcomeCode }` must be exactly as strict as the full outcome schema: what it accepts the
// schema accepts with the same result; what it declines goes to the schema (same result or same typed error).

const code = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('done', 'sent', 'a.b:c-1', 'x'.repeat(64)) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('', '-lead', 'x'.repeat(65), 'has space', 5, null, undefined) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
class Outcome {
  outcomeCode = 'done';
}
const outcome = fc.oneof(
  { weight: 6, arbitrary: code.map((outcomeCode) => ({ outcomeCode })) },
  { weight: 1, arbitrary: code.map((outcomeCode) => ({ outcomeCode, result: { n: 1 } })) },
  { weight: 1, arbitrary: code.map((outcomeCode) => ({ outcomeCode, result: undefined })) },
  { weight: 1, arbitrary: code.map((outcomeCode) => ({ outcomeCode, extra: 1 })) },
  { weight: 1, arbitrary: code.map((outcomeCode) => Object.assign(Object.create(null), { outcomeCode })) },
  { weight: 1, arbitrary: code.map((outcomeCode) => ({ outcomeCode, [Symbol('s')]: 1 })) },
  {
    weight: 1,
    arbitrary: code.map((outcomeCode) =>
      Object.defineProperty({ outcomeCode }, 'hidden', { value: 1, enumerable: false }),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], 'done', new Outcome(), {}, new Map()) },
);

function verdict(parse: () => unknown): unknown {
  try {
    return { ok: parse() };
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return { refused: (error as InvalidInputError).message, issues: (error as InvalidInputError).issues };
  }
}

describe('the one-pass check of a job outcome (exactly as strict as the schema)', () => {
  it('accepts only what the schema accepts, returning exactly what the schema returns', () => {
    let accepted = 0;
    fc.assert(
      fc.property(outcome, (value) => {
        const checked = checkPlainOutcome(value);
        if (checked === undefined) return;
        accepted += 1;
        const full = jobOutcomeSchema.safeParse(value);
        expect(full.success).toBe(true);
        expect(checked).toStrictEqual(full.data);
        expect(checked).not.toBe(value);
      }),
      { numRuns: 2_000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('parseJobOutcome gives the same result or the same typed error as the schema alone, for any outcome', () => {
    fc.assert(
      fc.property(outcome, (value) => {
        expect(verdict(() => parseJobOutcome(value))).toStrictEqual(
          verdict(() => parseInput(jobOutcomeSchema, value, 'job outcome')),
        );
      }),
      { numRuns: 1_000 },
    );
  });

  it('takes the one pass for a bare outcome code, and leaves a result to the schema', () => {
    expect(checkPlainOutcome({ outcomeCode: 'done' })).toStrictEqual({ outcomeCode: 'done' });
    expect(checkPlainOutcome({ outcomeCode: 'done', result: { n: 1 } })).toBeUndefined();
  });

  it('checks an outcome code with the schema once, however many jobs report it', () => {
    const check = vi.spyOn(outcomeCodeSchema, 'safeParse');
    try {
      for (let index = 0; index < 10; index += 1) parseJobOutcome({ outcomeCode: 'reported-once' });
      expect(check).toHaveBeenCalledTimes(1);
    } finally {
      check.mockRestore();
    }
  });
});
