import { describe, expect, it } from 'vitest';
import { auditKeySource, isLoopback, loadAuditKey } from '../../../infra/cli/identifier-key.js';
import { DEVELOPMENT_IDENTIFIER_KEY } from '../../../lib/hashing.js';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:IdentifierKey-Ab12';
const OTHER = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:IdentifierKey-Zz99';
const loopback = { dynamodb: 'http://127.0.0.1:8000', sqs: 'http://localhost:9324' };
const aws = { kind: 'aws' as const, endpoints: {} };

/** The rule of the key an audit-writing command hashes ids under, decided before anything is written. */
describe('the CLI chooses the key of audit pseudonyms', () => {
  it('the local stack and engines on loopback: the development key, as their own admin uses', () => {
    expect(auditKeySource({ kind: 'local', endpoints: loopback }, {})).toEqual({ source: 'development' });
    expect(auditKeySource({ kind: 'aws', endpoints: loopback }, {})).toEqual({ source: 'development' });
    expect(auditKeySource({ kind: 'aws', endpoints: { ...loopback, sqs: 'http://[::1]:9324' } }, {})).toEqual({
      source: 'development',
    });
  });

  it('AWS (no endpoint, a remote endpoint, or only one on loopback) without a key: refused, never the public key', () => {
    const refusals = [
      () => auditKeySource(aws, {}),
      () => auditKeySource({ kind: 'aws', endpoints: { dynamodb: 'https://dynamodb.eu-west-1.amazonaws.com' } }, {}),
      () => auditKeySource({ kind: 'aws', endpoints: { dynamodb: loopback.dynamodb } }, {}),
      () => auditKeySource({ kind: 'aws', endpoints: { dynamodb: 'http://0.0.0.0:8000', sqs: loopback.sqs } }, {}),
    ];
    for (const refusal of refusals) expect(refusal).toThrow(/--identifier-key-secret: required against AWS/);
    expect(() => auditKeySource(aws, { stack: 'prod' })).toThrow(/stack prod has no IdentifierKeySecretArn output/);
  });

  it("AWS: the flag's secret, else the stack's output; a flag that contradicts the output, or one on the local stack, is refused", () => {
    expect(auditKeySource(aws, { 'identifier-key-secret': SECRET })).toEqual({ source: 'secret', secretArn: SECRET });
    expect(auditKeySource({ ...aws, identifierKeySecretArn: SECRET }, { stack: 'prod' })).toEqual({
      source: 'secret',
      secretArn: SECRET,
    });
    expect(auditKeySource({ kind: 'aws', endpoints: loopback }, { 'identifier-key-secret': SECRET })).toEqual({
      source: 'secret',
      secretArn: SECRET,
    });
    expect(() =>
      auditKeySource({ ...aws, identifierKeySecretArn: SECRET }, { stack: 'prod', 'identifier-key-secret': OTHER }),
    ).toThrow(/stack prod outputs another secret/);
    expect(() => auditKeySource({ kind: 'local', endpoints: loopback }, { 'identifier-key-secret': SECRET })).toThrow(
      /the local stack hashes ids under the development key/,
    );
  });

  it('loads the secret named, from its own region; a short secret is a ConfigurationError', async () => {
    // prepare
    const reads: string[] = [];
    const reader = (value: string) => async (arn: string) => {
      reads.push(arn);
      return value;
    };

    // act
    const key = await loadAuditKey(aws, { 'identifier-key-secret': SECRET }, reader('k'.repeat(64)));
    const short = loadAuditKey(aws, { 'identifier-key-secret': SECRET }, reader('short'));
    const local = await loadAuditKey({ kind: 'local', endpoints: loopback }, {}, reader('unused-unused-unused'));

    // assert
    expect(key).toBe('k'.repeat(64));
    await expect(short).rejects.toThrow(/shorter than 16 bytes/);
    expect(local).toBe(DEVELOPMENT_IDENTIFIER_KEY);
    expect(reads).toEqual([SECRET, SECRET]);
  });

  it('loopback means localhost, 127.0.0.0/8 and ::1 only', () => {
    expect(['http://localhost:1', 'http://127.0.0.1:1', 'http://127.9.9.9', 'http://[::1]:1'].map(isLoopback)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['http://0.0.0.0:1', 'https://dynamodb.eu-west-1.amazonaws.com', 'http://127.0.0.1.example.com', undefined].map(
        isLoopback,
      ),
    ).toEqual([false, false, false, false]);
  });
});
