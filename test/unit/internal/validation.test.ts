import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InvalidInputError } from '../../../lib/errors.js';
import { parseAndVouch, parseInputOnce, vouchFor } from '../../../lib/internal/validation.js';

const leaseLike = z.strictObject({ owner: z.string().min(1), leaseMs: z.number().int().min(1) });
const otherSchema = z.strictObject({ owner: z.string().min(1), leaseMs: z.number().int().min(1) });

describe('validating an input once', () => {
  it('returns a vouched value as it is, frozen, and the brand never shows up in its keys or copies', () => {
    const lease = parseAndVouch(leaseLike, { owner: 'worker-1', leaseMs: 30_000 }, 'lease');

    expect(parseInputOnce(leaseLike, lease, 'lease')).toBe(lease);
    expect(Object.isFrozen(lease)).toBe(true);
    expect(Object.keys(lease)).toEqual(['owner', 'leaseMs']);
    expect(lease).toEqual({ owner: 'worker-1', leaseMs: 30_000 });
    const copy = { ...lease };
    expect(parseInputOnce(leaseLike, copy, 'lease')).not.toBe(copy);
  });

  it('checks a copy or an unvouched object in full, and a value vouched for another schema too', () => {
    const lease = parseAndVouch(leaseLike, { owner: 'worker-1', leaseMs: 30_000 }, 'lease');
    expect(() => parseInputOnce(leaseLike, { ...lease, leaseMs: 0 }, 'lease')).toThrow(InvalidInputError);
    expect(() => parseInputOnce(leaseLike, { owner: '', leaseMs: 1 }, 'lease')).toThrow(/invalid lease: owner/);

    const vouchedElsewhere = vouchFor(otherSchema, { owner: '', leaseMs: 1 });
    expect(() => parseInputOnce(leaseLike, vouchedElsewhere, 'lease')).toThrow(InvalidInputError);
  });

  it('refuses to vouch for bad input: nothing is marked, the error names the field', () => {
    expect(() => parseAndVouch(leaseLike, { owner: 'w', leaseMs: -1 }, 'lease')).toThrow(/leaseMs/);
  });
});
