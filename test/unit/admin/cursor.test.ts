import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../lib/admin/cursor.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { expectThrown } from '../../support/expectations.js';

const attributes = ['pk', 'sk', 'parkedState', 'parkedAt'];
const key = { pk: 'acme', sk: 'op#refund-1', parkedState: 'unknown', parkedAt: 1767225600000 };

describe('opaque admin cursor', () => {
  it('round-trips a key as base64url for the same listing', () => {
    const cursor = encodeCursor('parkedByState:unknown', key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('parkedByState:unknown', cursor, attributes, { parkedState: 'unknown' })).toEqual(key);
  });

  it('no key, no cursor; no cursor, no key', () => {
    expect(encodeCursor('s', undefined)).toBeUndefined();
    expect(decodeCursor('s', undefined, attributes)).toBeUndefined();
  });

  it.each([
    ['another listing', encodeCursor('parkedByState:failed_terminal', key)],
    ['a pinned value that differs', encodeCursor('parkedByState:unknown', { ...key, parkedState: 'quarantined' })],
    ['missing attributes', encodeCursor('parkedByState:unknown', { pk: 'acme', sk: 'op#x' })],
    ['extra attributes', encodeCursor('parkedByState:unknown', { ...key, extra: 'x' })],
    ['a nested value', encodeCursor('parkedByState:unknown', { ...key, parkedAt: { N: '1' } })],
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['too long', 'a'.repeat(5000)],
  ])('rejects %s with a 400 on cursor', (_case, cursor) => {
    const error = expectThrown(
      () => decodeCursor('parkedByState:unknown', cursor, attributes, { parkedState: 'unknown' }),
      InvalidInputError,
    );
    expect(error.issues).toEqual([expect.objectContaining({ path: 'cursor' })]);
  });
});
