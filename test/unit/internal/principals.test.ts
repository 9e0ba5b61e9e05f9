import { describe, expect, it } from 'vitest';
import { principalEntrySchema, principalMatches } from '../../../lib/internal/principals.js';

const session = (role: string, name: string, id = 'AROAEXAMPLEROLE00000') => ({
  arn: `arn:aws:sts::123456789012:assumed-role/${role}/${name}`,
  userId: `${id}:${name}`,
});

describe('principal allowlist entries', () => {
  it.each([
    [
      'a role ARN covers every session of the role',
      'arn:aws:iam::123456789012:role/ops/Privacy',
      session('Privacy', 'x'),
      true,
    ],
    [
      '…never a session of another role named after it',
      'arn:aws:iam::123456789012:role/Privacy',
      session('Ops', 'Privacy'),
      false,
    ],
    [
      '…nor the same role name in another account',
      'arn:aws:iam::999999999999:role/Privacy',
      session('Privacy', 'x'),
      false,
    ],
    ['a role id covers every session', 'AROAEXAMPLEROLE00000', session('Privacy', 'x'), true],
    [
      'a role id with a session names only that session',
      'AROAEXAMPLEROLE00000:alice',
      session('Privacy', 'bob'),
      false,
    ],
    [
      'a user ARN matches that user',
      'arn:aws:iam::123456789012:user/alice',
      { arn: 'arn:aws:iam::123456789012:user/alice' },
      true,
    ],
    ['a user id matches that user', 'AIDAEXAMPLEUSER00000', { userId: 'AIDAEXAMPLEUSER00000' }, true],
    ['an id prefix is not the id', 'AROAEXAMPLE000000000', { userId: 'AROAEXAMPLE0000000001:x' }, false],
  ])('%s', (_name, entry, principal, expected) => {
    expect(principalEntrySchema.safeParse(entry).success).toBe(true);
    expect(principalMatches(entry, principal)).toBe(expected);
  });

  it('refuses entries that name no principal (a wildcard, a session ARN, free text)', () => {
    for (const entry of [
      '*',
      'arn:aws:sts::123456789012:assumed-role/Privacy/x',
      'privacy team',
      'arn:aws:iam::*:role/x',
    ]) {
      expect(principalEntrySchema.safeParse(entry).success, entry).toBe(false);
    }
  });
});
