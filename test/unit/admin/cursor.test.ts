import { describe, expect, it } from 'vitest';
import { decodeCursor, decodeShardCursor, encodeCursor, encodeShardCursor } from '../../../lib/admin/cursor.js';
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

describe('opaque sharded cursor', () => {
  const shardKeys = ['unknown#0', 'unknown#1', 'unknown#2'];
  const scope = 'parkedByState:*:unknown';
  const after = { pk: 'acme#1', sk: 'op#refund-1', parkedState: 'unknown#1', parkedAt: 1767225600000 };
  const positions = [{ at: 'done' }, { at: 'after', key: after }, { at: 'start' }] as const;
  const decode = (cursor: string | undefined) => decodeShardCursor(scope, cursor, shardKeys, attributes, 'parkedState');

  it('round-trips each shard position, putting back the shard key it implies', () => {
    const cursor = encodeShardCursor(scope, positions, 'parkedState');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(cursor as string, 'base64url').toString('utf8')).not.toContain('unknown#1');
    expect(decode(cursor)).toEqual(positions);
  });

  it('no cursor: every shard from its start; every shard done: no cursor', () => {
    expect(decode(undefined)).toEqual(shardKeys.map(() => ({ at: 'start' })));
    expect(encodeShardCursor(scope, [{ at: 'done' }, { at: 'done' }], 'parkedState')).toBeUndefined();
  });

  const encoded = (body: unknown) => Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  it.each([
    ['another listing', encodeShardCursor('parkedByTenant:acme:unknown', positions, 'parkedTenantState')],
    ['a cursor of an unsharded listing', encodeCursor(scope, key)],
    ['another shard count', encoded({ s: scope, p: [0, 1] })],
    ['a key naming its own shard', encoded({ s: scope, p: [1, after, 0] })],
    ['a key missing attributes', encoded({ s: scope, p: [1, { pk: 'acme#1', sk: 'op#x' }, 0] })],
    ['a key with a bad time', encoded({ s: scope, p: [1, { pk: 'acme#1', sk: 'op#x', parkedAt: -1 }, 0] })],
    ['an unknown position', encoded({ s: scope, p: [2, 0, 0] })],
    ['too long', 'a'.repeat(9000)],
  ])('rejects %s with a 400 on cursor', (_case, cursor) => {
    const error = expectThrown(() => decode(cursor), InvalidInputError);
    expect(error.issues).toEqual([expect.objectContaining({ path: 'cursor' })]);
  });
});
