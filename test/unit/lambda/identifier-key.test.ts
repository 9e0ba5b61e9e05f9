import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../lib/errors.js';
import { DEVELOPMENT_IDENTIFIER_KEY } from '../../../lib/hashing.js';
import { identifierKeyLoader } from '../../../lib/lambda/identifier-key.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:leasefence-identifier-key-AbCdEf';

describe('identifierKeyLoader', () => {
  it('reads the secret once per container and keeps it', async () => {
    const reads: string[] = [];
    const load = identifierKeyLoader({ identifierKeySecretArn: ARN }, async (arn) => {
      reads.push(arn);
      return 'generated-secret-value-0123456789';
    });

    const [first, second] = [await load(), await load()];

    expect(first).toEqual({ key: 'generated-secret-value-0123456789', source: 'secret' });
    expect(second).toBe(first);
    expect(reads).toEqual([ARN]);
  });

  it('uses the fixed development key, and says so, when no secret is configured', async () => {
    const load = identifierKeyLoader({}, async () => {
      throw new Error('must not be called');
    });
    expect(await load()).toEqual({ key: DEVELOPMENT_IDENTIFIER_KEY, source: 'development' });
  });

  it('a failed or empty read is a ConfigurationError, and the next call tries again', async () => {
    let calls = 0;
    const load = identifierKeyLoader({ identifierKeySecretArn: ARN }, async () => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
      if (calls === 2) return 'short';
      return 'generated-secret-value-0123456789';
    });

    await expect(load()).rejects.toThrow(/cannot read the identifier key secret: AccessDeniedException/);
    await expect(load()).rejects.toBeInstanceOf(ConfigurationError);
    expect((await load()).source).toBe('secret');
    expect(calls).toBe(3);
  });
});
