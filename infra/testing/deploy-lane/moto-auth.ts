import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';

/** An access key (a role session's carries its token). */
interface LaneCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** The services moto authorizes against the request's real resource ARN (every other one against `*`, moto 5.2.5). */
const RESOURCE_AWARE = new Set(['sqs', 'iam', 'sts', 's3']);
/** The inline policy the lane adds to each execution role: its other services' granted actions on any resource. */
const ANY_RESOURCE_POLICY = 'leasefence-lane-moto-any-resource';

/**
 * One IAM Query API call to moto while its auth is off (it then reads the service from the credential scope and
 * checks no signature; the project has no IAM client). A non-2xx answer ▶ Error with moto's body.
 */
async function iamQuery(endpoint: string, params: Record<string, string>): Promise<string> {
  const answer = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization:
        'AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: new URLSearchParams({ Version: '2010-05-08', ...params }).toString(),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`IAM ${params.Action} answered ${answer.status}: ${text}`);
  return text;
}

/** Every `<tag>value</tag>` of an XML answer, XML entities decoded. */
function xmlValues(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((match) =>
    String(match[1])
      .replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&'),
  );
}

/** An IAM user allowed every action, and its access key: the lane's own tooling once moto's auth is on. */
async function createAdminKey(endpoint: string): Promise<LaneCredentials> {
  const UserName = 'leasefence-lane-admin';
  await iamQuery(endpoint, { Action: 'CreateUser', UserName });
  const PolicyDocument = JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
  });
  await iamQuery(endpoint, { Action: 'PutUserPolicy', UserName, PolicyName: 'admin', PolicyDocument });
  const key = await iamQuery(endpoint, { Action: 'CreateAccessKey', UserName });
  const [accessKeyId, secretAccessKey] = [xmlValues(key, 'AccessKeyId')[0], xmlValues(key, 'SecretAccessKey')[0]];
  if (!accessKeyId || !secretAccessKey) throw new Error(`CreateAccessKey answered no key: ${key}`);
  return { accessKeyId, secretAccessKey };
}

type Statement = { Effect?: string; Action?: string | string[]; Resource?: unknown; Condition?: unknown };

/**
 * Operations AWS authorizes as the per-entry actions they carry, which moto authorizes by their own name: what a
 * grant of the entry action lets the role call (infra/README.md "Deployment lane").
 */
const MOTO_OPERATION_NAMES: Readonly<Record<string, readonly string[]>> = {
  'sqs:SendMessage': ['sqs:SendMessageBatch'],
  'sqs:DeleteMessage': ['sqs:DeleteMessageBatch'],
  'sqs:ChangeMessageVisibility': ['sqs:ChangeMessageVisibilityBatch'],
  'dynamodb:PutItem': ['dynamodb:TransactWriteItems'],
  'dynamodb:UpdateItem': ['dynamodb:TransactWriteItems'],
  'dynamodb:DeleteItem': ['dynamodb:TransactWriteItems'],
  'dynamodb:ConditionCheckItem': ['dynamodb:TransactWriteItems'],
  'dynamodb:GetItem': ['dynamodb:TransactGetItems'],
};

const serviceOf = (action: string) => action.split(':')[0] ?? '';
const sorted = (actions: readonly string[]) => [...new Set(actions)].sort();

/**
 * What moto needs to allow what `statements` allow: their actions of services moto authorizes against `*`, on any
 * resource, and the operation names of MOTO_OPERATION_NAMES (on SQS on the statement's own resources). [] ▶ nothing.
 */
function motoStatements(statements: readonly Statement[]): Statement[] {
  const anyResource: string[] = [];
  const scoped: Statement[] = [];
  for (const statement of statements) {
    if (statement.Effect !== 'Allow' || statement.Action === undefined) continue;
    const actions = [statement.Action].flat();
    const named = actions.flatMap((action) => MOTO_OPERATION_NAMES[action] ?? []);
    anyResource.push(...[...actions, ...named].filter((action) => !RESOURCE_AWARE.has(serviceOf(action))));
    const own = named.filter((action) => RESOURCE_AWARE.has(serviceOf(action)));
    if (own.length) scoped.push({ Effect: 'Allow', Action: sorted(own), Resource: statement.Resource });
  }
  return [...(anyResource.length ? [{ Effect: 'Allow', Action: sorted(anyResource), Resource: '*' }] : []), ...scoped];
}

/**
 * Adds to `roleName` motoStatements of its inline policies: without it moto would refuse every resource-scoped grant
 * on DynamoDB, Secrets Manager, KMS, … and every batch or transaction call. So on those services the lane enforces
 * actions, not resources; on SQS it enforces both (infra/README.md says so).
 */
async function widenForMoto(endpoint: string, roleName: string): Promise<void> {
  const names = xmlValues(await iamQuery(endpoint, { Action: 'ListRolePolicies', RoleName: roleName }), 'member');
  const statements: Statement[] = [];
  for (const PolicyName of names) {
    const answer = await iamQuery(endpoint, { Action: 'GetRolePolicy', RoleName: roleName, PolicyName });
    const document = JSON.parse(decodeURIComponent(String(xmlValues(answer, 'PolicyDocument')[0]))) as {
      Statement: Statement | Statement[];
    };
    statements.push(...[document.Statement].flat());
  }
  const widened = motoStatements(statements);
  if (!widened.length) return;
  await iamQuery(endpoint, {
    Action: 'PutRolePolicy',
    RoleName: roleName,
    PolicyName: ANY_RESOURCE_POLICY,
    PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: widened }),
  });
}

/** A session of the role `roleArn` (what Lambda gives a function of that execution role), asked while auth is off. */
async function roleSession(roleArn: string, sessionName: string): Promise<LaneCredentials> {
  const sts = new STSClient({});
  try {
    const answer = await sts.send(
      new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: sessionName, DurationSeconds: 3_600 }),
    );
    const credentials = answer.Credentials;
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey || !credentials.SessionToken) {
      throw new Error(`AssumeRole ${roleArn} answered no credentials`);
    }
    return {
      accessKeyId: credentials.AccessKeyId,
      secretAccessKey: credentials.SecretAccessKey,
      sessionToken: credentials.SessionToken,
    };
  } finally {
    sts.destroy();
  }
}

/**
 * Turns moto's IAM enforcement on (`POST /moto-api/reset-auth`, the body a bare number: 0 requests without auth).
 * From then on every request needs a known key, a valid signature and an allowing identity policy.
 */
async function enableMotoAuth(endpoint: string): Promise<void> {
  const answer = await fetch(`${endpoint}/moto-api/reset-auth`, { method: 'POST', body: '0' });
  if (!answer.ok) throw new Error(`moto's reset-auth answered ${answer.status}: ${await answer.text()}`);
}

export { createAdminKey, enableMotoAuth, type LaneCredentials, motoStatements, roleSession, widenForMoto };
