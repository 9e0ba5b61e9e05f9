import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../../lib/errors.js';
import { DEVELOPMENT_IDENTIFIER_KEY } from '../../../lib/hashing.js';
import { createAdminHandler } from '../../../lib/lambda/admin-handler.js';
import { identifierKeyLoader } from '../../../lib/lambda/identifier-key.js';
import { createSqsWorkerHandler } from '../../../lib/lambda/sqs-worker-handler.js';
import { functionUrlEvent } from '../../support/function-url-event.js';

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

  it('the default reader loads the Secrets Manager SDK on the first read; a failed read is a ConfigurationError', async () => {
    // Nothing listens on this loopback port: the SDK module is imported, the client built, the request refused.
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', 'http://127.0.0.1:9');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    vi.stubEnv('AWS_MAX_ATTEMPTS', '1');
    try {
      const load = identifierKeyLoader({ identifierKeySecretArn: ARN }, undefined, {});

      await expect(load()).rejects.toBeInstanceOf(ConfigurationError);
      await expect(load()).rejects.toThrow(/cannot read the identifier key secret/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('a handler without the identifier key secret, in Lambda', () => {
  const config = {
    jobsTable: 'jobs',
    payloadsTable: 'payloads',
    queueUrl: 'http://127.0.0.1:9/000000000000/jobs',
    deadlineShards: 8,
    payloadRetentionDays: 30,
    dynamodbEndpoint: 'http://127.0.0.1:9',
  };
  afterEach(() => vi.unstubAllEnvs());

  it('the loader refuses at once in Lambda (AWS_LAMBDA_FUNCTION_NAME set), and serves the development key outside', async () => {
    const reader = async () => 'never-read-0123456789';

    expect(() => identifierKeyLoader({}, reader, { AWS_LAMBDA_FUNCTION_NAME: 'leasefence-worker' })).toThrow(
      ConfigurationError,
    );
    expect(await identifierKeyLoader({}, reader, {})()).toMatchObject({ source: 'development' });
    expect(
      await identifierKeyLoader({ identifierKeySecretArn: ARN }, reader, { AWS_LAMBDA_FUNCTION_NAME: 'fn' })(),
    ).toEqual({ key: 'never-read-0123456789', source: 'secret' });
  });

  it('the worker handler refuses to start; the admin handler refuses every request with a 500 and does nothing', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'leasefence-worker');

    expect(() => createSqsWorkerHandler({ jobs: [], config })).toThrow(/IDENTIFIER_KEY_SECRET_ARN/);
    const admin = createAdminHandler({ config });
    const reply = await admin(functionUrlEvent({ method: 'GET', path: '/health' }));
    expect(reply).toMatchObject({ statusCode: 500 });
    expect(JSON.parse(String((reply as { body?: string }).body))).toMatchObject({ error: 'configuration' });
  });

  it('outside Lambda (the local stack, tests) the same handlers start with the development key', () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', '');

    expect(() => createSqsWorkerHandler({ jobs: [], config })).not.toThrow();
  });
});
