import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { LeasefenceConfig } from '../config.js';
import { ConfigurationError } from '../errors.js';
import { DEVELOPMENT_IDENTIFIER_KEY, type IdentifierKey } from '../hashing.js';

/** Reads a secret's string value (Secrets Manager GetSecretValue by default). */
type SecretReader = (secretArn: string) => Promise<string | undefined>;

/** Where the key came from: the deployment's secret, or the fixed development key (not secret). */
interface LoadedIdentifierKey {
  key: IdentifierKey;
  source: 'secret' | 'development';
}

/**
 * GetSecretValue through a client built on the first read: the Secrets Manager SDK module is loaded then, on the
 * first invocation, not at import (it is needed once per container, and is not in a cold start's module init).
 * `region` overrides the SDK's default (the CLI passes the secret ARN's own region).
 */
function secretsManagerReader(clientConfig: { region?: string } = {}): SecretReader {
  let client: SecretsManagerClient | undefined;
  return async (secretArn) => {
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    client ??= new SecretsManagerClient(clientConfig);
    return (await client.send(new GetSecretValueCommand({ SecretId: secretArn }))).SecretString;
  };
}

/** True inside AWS Lambda, which sets AWS_LAMBDA_FUNCTION_NAME for every function. */
function runsInLambda(env: NodeJS.ProcessEnv): boolean {
  return (env.AWS_LAMBDA_FUNCTION_NAME ?? '') !== '';
}

/**
 * A once-per-container loader of the key identifiers are hashed with in logs and metrics: the secret named
 * by LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN (the construct creates it with a generated value and grants the
 * worker and admin roles GetSecretValue), read on the first call and kept. Without that variable: the fixed
 * development key outside Lambda (local stack, tests), and in Lambda a ConfigurationError thrown at once, so the
 * handler refuses to start rather than hash with a public key. A failed or empty read rejects with
 * ConfigurationError and is retried on the next call.
 * @example
 * const loadKey = identifierKeyLoader(readConfig());
 * const { key } = await loadKey(); // in the handler, before anything is logged
 */
function identifierKeyLoader(
  config: Pick<LeasefenceConfig, 'identifierKeySecretArn'>,
  readSecret?: SecretReader,
  env: NodeJS.ProcessEnv = process.env,
): () => Promise<LoadedIdentifierKey> {
  if (!config.identifierKeySecretArn && runsInLambda(env)) {
    throw new ConfigurationError(
      "LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN is not set: in Lambda identifiers are hashed only under the deployment's secret key (the development key is public)",
    );
  }
  let pending: Promise<LoadedIdentifierKey> | undefined;
  const load = async (): Promise<LoadedIdentifierKey> => {
    const secretArn = config.identifierKeySecretArn;
    if (!secretArn) return { key: DEVELOPMENT_IDENTIFIER_KEY, source: 'development' };
    // The client is built only when a secret is configured (local runs need no region or credentials).
    const value = await (readSecret ?? secretsManagerReader())(secretArn).catch((error: unknown) => {
      throw new ConfigurationError(`cannot read the identifier key secret: ${(error as Error).name ?? 'error'}`);
    });
    if (!value || Buffer.byteLength(value, 'utf8') < 16) {
      throw new ConfigurationError('the identifier key secret is empty or shorter than 16 bytes');
    }
    return { key: value, source: 'secret' };
  };
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

export { identifierKeyLoader, type LoadedIdentifierKey, type SecretReader, secretsManagerReader };
