import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as zm from 'zod/mini';
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

// The Lambda bundles load zod/mini, which sets no locale: without classic zod in the process (whose import sets
// English), an issue with no message of its own would read "Invalid input". parseInput falls back to English.
describe('issue messages without a configured locale (zod/mini alone)', () => {
  const miniLease = zm.strictObject({ owner: zm.string().check(zm.minLength(1)), leaseMs: zm.number() });

  function withoutLocale<T>(body: () => T): T {
    const config = z.config();
    const { localeError, customError } = config;
    config.localeError = undefined;
    config.customError = undefined;
    try {
      return body();
    } finally {
      config.localeError = localeError;
      config.customError = customError;
    }
  }

  it("gives zod's English messages", () => {
    const error = withoutLocale(() =>
      expectThrown(() => parseInput(miniLease, { owner: '', leaseMs: 'x', extra: 1 }, 'lease'), InvalidInputError),
    );

    expect(error.issues).toEqual([
      { path: 'owner', message: 'Too small: expected string to have >=1 characters' },
      { path: 'leaseMs', message: 'Invalid input: expected number, received string' },
      { path: '(root)', message: 'Unrecognized key: "extra"' },
    ]);
  });

  it('lets a configured locale or custom error speak first', () => {
    const error = withoutLocale(() => {
      z.config({ customError: (issue) => (issue.code === 'invalid_type' ? 'custom: wrong type' : undefined) });
      return expectThrown(() => parseInput(miniLease, { owner: '', leaseMs: 'x' }, 'lease'), InvalidInputError);
    });

    expect(error.issues.map((issue) => issue.message)).toEqual([
      'Too small: expected string to have >=1 characters',
      'custom: wrong type',
    ]);
  });
});
