import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { parseNewWorkItem } from '../../../lib/store/schemas.js';
import { expectThrown } from '../../support/expectations.js';

const valid = {
  identity: { tenantId: 'acme', operationId: 'refund-1' },
  jobType: 'refund',
  payloadHash: 'f'.repeat(64),
  payloadRef: 's3://bucket/refund-1.json',
  maxAttempts: 3,
};

describe('parseNewWorkItem', () => {
  it('accepts a payloadRef item and an inline item', () => {
    expect(parseNewWorkItem(valid)).toEqual(valid);
    const { payloadRef: _ref, ...withoutRef } = valid;
    expect(parseNewWorkItem({ ...withoutRef, payloadInline: true })).toEqual({ ...withoutRef, payloadInline: true });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a bad tenant', { identity: { tenantId: 'a#b', operationId: 'x' } }, 'identity.tenantId'],
    ['a bad operation', { identity: { tenantId: 'a', operationId: '' } }, 'identity.operationId'],
    ['a bad job type', { jobType: 'refund v2' }, 'jobType'],
    ['an uppercase hash', { payloadHash: 'F'.repeat(64) }, 'payloadHash'],
    ['a short hash', { payloadHash: 'f'.repeat(63) }, 'payloadHash'],
    ['an empty payloadRef', { payloadRef: '' }, 'payloadRef'],
    ['an oversize payloadRef', { payloadRef: 'r'.repeat(1025) }, 'payloadRef'],
    ['zero attempts', { maxAttempts: 0 }, 'maxAttempts'],
    ['fractional attempts', { maxAttempts: 1.5 }, 'maxAttempts'],
    ['too many attempts', { maxAttempts: 101 }, 'maxAttempts'],
    ['a negative availableAt', { availableAt: -1 }, 'availableAt'],
    ['both payload forms', { payloadInline: true }, 'payloadRef'],
  ])('rejects %s naming the field', (_label, change, path) => {
    const error = expectThrown(() => parseNewWorkItem({ ...valid, ...change }), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toContain(path);
  });

  it('rejects neither payload form', () => {
    const { payloadRef: _ref, ...withoutRef } = valid;

    const error = expectThrown(() => parseNewWorkItem(withoutRef), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toEqual(['payloadRef']);
  });

  it('rejects unknown fields such as a payload body', () => {
    const error = expectThrown(() => parseNewWorkItem({ ...valid, payload: { amount: 10 } }), InvalidInputError);

    expect(error.message).toContain('payload');
  });
});
