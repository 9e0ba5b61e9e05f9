import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InvalidInputError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/internal/validation.js';
import { expectThrown } from '../../support/expectations.js';

const leaseLike = z.strictObject({ owner: z.string().min(1), leaseMs: z.number().int().min(1) }).brand<'Lease'>();

// Each input is parsed once, where it enters the library; what comes out is the schema's output type (here
// branded), which inner functions take instead of raw input. There is no marker to skip a check: nothing checks twice.
describe('parsing an input at its boundary', () => {
  it('returns the schema output, a fresh object, for valid input', () => {
    const input = { owner: 'worker-1', leaseMs: 30_000 };

    const lease = parseInput(leaseLike, input, 'lease');

    expect(lease).toEqual(input);
    expect(lease).not.toBe(input);
  });

  it('names every bad field in one InvalidInputError, and returns nothing partial', () => {
    const error = expectThrown(() => parseInput(leaseLike, { owner: '', leaseMs: 0 }, 'lease'), InvalidInputError);

    expect(error.message).toMatch(/^invalid lease: owner: .*; leaseMs: /);
    expect(error.issues.map((issue) => issue.path)).toEqual(['owner', 'leaseMs']);
  });

  it('names the root when the input is not an object at all, and refuses unknown fields of a strict schema', () => {
    expect(expectThrown(() => parseInput(leaseLike, 'lease', 'lease'), InvalidInputError).issues[0]?.path).toBe(
      '(root)',
    );
    const extra = expectThrown(
      () => parseInput(leaseLike, { owner: 'w', leaseMs: 1, x: 1 }, 'lease'),
      InvalidInputError,
    );
    expect(extra.message).toContain('x');
  });

  it('gives a copy of a parsed value no standing of its own: a changed copy is checked in full like any input', () => {
    const lease = parseInput(leaseLike, { owner: 'worker-1', leaseMs: 30_000 }, 'lease');

    expect(() => parseInput(leaseLike, { ...lease, leaseMs: 0 }, 'lease')).toThrow(InvalidInputError);
    expect(Object.keys(lease)).toEqual(['owner', 'leaseMs']);
  });
});
