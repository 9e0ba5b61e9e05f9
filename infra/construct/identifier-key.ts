import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/** How the identifier key secret is kept and encrypted. */
interface IdentifierKeyOptions {
  removalPolicy: RemovalPolicy;
  /** Customer-managed key; without it Secrets Manager's AWS-managed key (aws/secretsmanager). */
  encryptionKey?: kms.IKey;
}

/**
 * The deployment's key for pseudonyms in logs and metrics (HMAC, lib/hashing.ts): a Secrets Manager secret
 * whose 64-character value CloudFormation generates, so nobody ever sees or types it. The worker and
 * admin functions read it once per container (lib/lambda/identifier-key.ts); the sweeper logs no ids.
 */
function createIdentifierKeySecret(scope: Construct, options: IdentifierKeyOptions): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, 'IdentifierKey', {
    description: 'leasefence: key of the identifier hashes (HMAC) in logs and metrics',
    generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    removalPolicy: options.removalPolicy,
    ...(options.encryptionKey ? { encryptionKey: options.encryptionKey } : {}),
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The value is an HMAC key for log pseudonyms, not a credential: rotating it would only break the ' +
      'correlation of log lines across the rotation. Replace the secret deliberately to re-key.',
  });
  return secret;
}

export { createIdentifierKeySecret, type IdentifierKeyOptions };
