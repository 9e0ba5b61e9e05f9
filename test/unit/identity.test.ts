import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { formatIdentity, parseIdentity } from '../../lib/identity.js';
import { workItemKey } from '../../lib/store/table.js';
import { expectThrown } from '../support/expectations.js';

describe('parseIdentity', () => {
  it('accepts the full charsets at their maximum lengths and returns a frozen copy', () => {
    const input = { tenantId: `T0._-${'t'.repeat(59)}`, operationId: `O0._:/=+@-${'o'.repeat(246)}` };

    const identity = parseIdentity(input);

    expect(identity).toEqual(input);
    expect(identity).not.toBe(input);
    expect(Object.isFrozen(identity)).toBe(true);
    expect(identity.tenantId).toHaveLength(64);
    expect(identity.operationId).toHaveLength(256);
  });

  it.each<[string, unknown, string]>([
    ['empty tenant', { tenantId: '', operationId: 'op' }, 'tenantId'],
    ['tenant too long', { tenantId: 't'.repeat(65), operationId: 'op' }, 'tenantId'],
    ['tenant with a space', { tenantId: 'acme corp', operationId: 'op' }, 'tenantId'],
    ['tenant with #', { tenantId: 'a#b', operationId: 'op' }, 'tenantId'],
    ['tenant with /', { tenantId: 'a/b', operationId: 'op' }, 'tenantId'],
    ['tenant with a non-ASCII letter', { tenantId: 'caf\u00e9', operationId: 'op' }, 'tenantId'],
    ['tenant starting with -', { tenantId: '-acme', operationId: 'op' }, 'tenantId'],
    ['tenant with a newline', { tenantId: 'acme\n', operationId: 'op' }, 'tenantId'],
    ['tenant not a string', { tenantId: 42, operationId: 'op' }, 'tenantId'],
    ['tenant missing', { operationId: 'op' }, 'tenantId'],
    ['empty operation', { tenantId: 'acme', operationId: '' }, 'operationId'],
    ['operation too long', { tenantId: 'acme', operationId: 'o'.repeat(257) }, 'operationId'],
    ['operation with #', { tenantId: 'acme', operationId: 'refund#1' }, 'operationId'],
    ['operation with a space', { tenantId: 'acme', operationId: 'refund 1' }, 'operationId'],
    ['operation with a quote', { tenantId: 'acme', operationId: 'refund"1' }, 'operationId'],
    ['operation starting with .', { tenantId: 'acme', operationId: '.refund' }, 'operationId'],
    ['operation null', { tenantId: 'acme', operationId: null }, 'operationId'],
  ])('rejects %s with InvalidInputError naming the field', (_label, input, field) => {
    const error = expectThrown(() => parseIdentity(input), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toEqual([field]);
    expect(error.message).toContain(field);
  });

  it('names both fields when both are bad', () => {
    const error = expectThrown(() => parseIdentity({ tenantId: '', operationId: '' }), InvalidInputError);

    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['operationId', 'tenantId']);
  });

  it('rejects unknown fields and non-objects', () => {
    expectThrown(() => parseIdentity({ tenantId: 'acme', operationId: 'op', extra: 1 }), InvalidInputError);
    expectThrown(() => parseIdentity('acme/op'), InvalidInputError);
    expectThrown(() => parseIdentity(undefined), InvalidInputError);
  });
});

describe('identity collisions', () => {
  it('rejects both halves of a #-delimiter collision: (a, b#c) and (a#b, c)', () => {
    const left = expectThrown(() => parseIdentity({ tenantId: 'a', operationId: 'b#c' }), InvalidInputError);
    const right = expectThrown(() => parseIdentity({ tenantId: 'a#b', operationId: 'c' }), InvalidInputError);

    expect(left.issues.map((issue) => issue.path)).toEqual(['operationId']);
    expect(right.issues.map((issue) => issue.path)).toEqual(['tenantId']);
  });

  it('maps (a, b.c) and (a.b, c) to different keys even though their printable forms look alike', () => {
    const first = parseIdentity({ tenantId: 'a', operationId: 'b.c' });
    const second = parseIdentity({ tenantId: 'a.b', operationId: 'c' });

    expect(workItemKey(first)).toMatchObject({ pk: expect.stringMatching(/^a#\d+$/), sk: 'op#b.c' });
    expect(workItemKey(second)).toMatchObject({ pk: expect.stringMatching(/^a\.b#\d+$/), sk: 'op#c' });
    expect(workItemKey(first)).not.toEqual(workItemKey(second));
  });

  it('maps (a, b/c) and (a/b, c) apart: / is allowed in operation ids only', () => {
    expect(formatIdentity(parseIdentity({ tenantId: 'a', operationId: 'b/c' }))).toBe('a/b/c');
    expectThrown(() => parseIdentity({ tenantId: 'a/b', operationId: 'c' }), InvalidInputError);
  });
});
