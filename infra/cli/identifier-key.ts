import { DEVELOPMENT_IDENTIFIER_KEY, type IdentifierKey } from '../../lib/hashing.js';
import { identifierKeyLoader, type SecretReader, secretsManagerReader } from '../../lib/lambda/identifier-key.js';
import type { OptionSpec } from './args.js';
import { UsageError } from './errors.js';
import { secretArnFlag } from './schemas.js';
import type { CliTarget } from './target.js';

/** The flag of every command that writes audit records: the deployment's identifier key secret. */
const IDENTIFIER_KEY_OPTIONS: Record<string, OptionSpec> = {
  'identifier-key-secret': {
    type: 'string',
    placeholder: '<arn>',
    description:
      "AWS: the deployment's identifier key secret (its IdentifierKeySecretArn output; read from the stack with --stack)",
  },
};

/** Validated form of IDENTIFIER_KEY_OPTIONS. */
const identifierKeyShape = { 'identifier-key-secret': secretArnFlag.optional() };

/** The flags the key decision reads: the stack named, and the secret given. */
interface IdentifierKeyFlags {
  stack?: string | undefined;
  'identifier-key-secret'?: string | undefined;
}

/** Where audit pseudonyms' key comes from: the fixed development key, or the deployment's secret. */
type AuditKeySource = { source: 'development' } | { source: 'secret'; secretArn: string };

/** True for a URL on this machine's loopback interface (localhost, 127.0.0.0/8, ::1). */
function isLoopback(url: string | undefined): boolean {
  if (url === undefined) return false;
  const host = URL.canParse(url) ? new URL(url).hostname : '';
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The refusal when an AWS target names no key: what to pass, and where the stack keeps it. */
function missingKey(flags: IdentifierKeyFlags): UsageError {
  const where = flags.stack
    ? `stack ${flags.stack} has no IdentifierKeySecretArn output (deployed before it existed: redeploy, or pass the secret)`
    : 'no --stack names it';
  return new UsageError(
    `--identifier-key-secret: required against AWS, where audit records name tenants and operations by pseudonyms ` +
      `under the deployment's secret key, never the public development key (${where}); nothing was changed`,
  );
}

/**
 * Decides the key an audit-writing command hashes ids under, before it writes anything. Pure. The local stack and
 * engines on this machine (every endpoint on loopback, no secret given): the development key, as their own admin
 * uses. Anything else is a deployment: the secret --identifier-key-secret names, else the stack's
 * IdentifierKeySecretArn output; neither ▶ UsageError (never the public key). A secret on the local stack, or one
 * that differs from the stack's output ▶ UsageError.
 */
function auditKeySource(
  target: Pick<CliTarget, 'kind' | 'endpoints' | 'identifierKeySecretArn'>,
  flags: IdentifierKeyFlags,
): AuditKeySource {
  const given = flags['identifier-key-secret'];
  if (target.kind === 'local') {
    if (given !== undefined)
      throw new UsageError('--identifier-key-secret: the local stack hashes ids under the development key');
    return { source: 'development' };
  }
  const output = target.identifierKeySecretArn;
  if (given !== undefined && output !== undefined && given !== output)
    throw new UsageError(`--identifier-key-secret: stack ${flags.stack} outputs another secret (${output})`);
  const secretArn = given ?? output;
  if (secretArn !== undefined) return { source: 'secret', secretArn };
  if (isLoopback(target.endpoints.dynamodb) && isLoopback(target.endpoints.sqs)) return { source: 'development' };
  throw missingKey(flags);
}

/**
 * The key of the target's audit pseudonyms (auditKeySource), the secret read once from Secrets Manager in the ARN's
 * own region (credentials: the default chain or --profile; endpoint: the SDK's AWS_ENDPOINT_URL_SECRETS_MANAGER).
 * An unreadable, empty or short secret ▶ ConfigurationError; no key ▶ UsageError. Either way nothing was written.
 */
async function loadAuditKey(
  target: Pick<CliTarget, 'kind' | 'endpoints' | 'identifierKeySecretArn'>,
  flags: IdentifierKeyFlags,
  readSecret?: SecretReader,
): Promise<IdentifierKey> {
  const decided = auditKeySource(target, flags);
  if (decided.source === 'development') return DEVELOPMENT_IDENTIFIER_KEY;
  const region = decided.secretArn.split(':')[3];
  const reader = readSecret ?? secretsManagerReader(region ? { region } : {});
  return (await identifierKeyLoader({ identifierKeySecretArn: decided.secretArn }, reader)()).key;
}

export {
  type AuditKeySource,
  auditKeySource,
  IDENTIFIER_KEY_OPTIONS,
  type IdentifierKeyFlags,
  identifierKeyShape,
  isLoopback,
  loadAuditKey,
};
