// What moto's CloudFormation cannot create from the synthesized template, rewritten so `cdk deploy` completes there
// (measured with moto 5.2.5; see infra/README.md "Deployment lane"). Used only against the emulator, never for AWS.

/** A CloudFormation template as JSON. */
type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> } & Record<
  string,
  unknown
>;

/** A secret the lane creates through the Secrets Manager API before the deploy (moto does not create it from a template). */
interface SecretToCreate {
  readonly logicalId: string;
  readonly name: string;
  readonly description: string;
  /** Length of the random value, as the template's GenerateSecretString asks. */
  readonly length: number;
}

/** Where the rewritten template points: each pre-created secret's ARN, the account and region for alarm ARNs, moto's URL. */
interface MotoRewriteInput {
  readonly stackName: string;
  /** moto's endpoint (`http://localhost:<port>`): the host its queue URLs must name. */
  readonly endpoint: string;
  readonly secretArns: Readonly<Record<string, string>>;
  readonly account: string;
  readonly region: string;
}

/** The template's Secrets Manager secrets, named `<stack>-<logicalId>`; a template without any ▶ []. */
function secretsToCreate(template: Template, stackName: string): SecretToCreate[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::SecretsManager::Secret')
    .map(([logicalId, resource]) => {
      const generate = resource.Properties?.GenerateSecretString as { PasswordLength?: number } | undefined;
      return {
        logicalId,
        name: `${stackName}-${logicalId}`,
        description: String(resource.Properties?.Description ?? ''),
        length: generate?.PasswordLength ?? 32,
      };
    });
}

/** Replaces `{Ref: id}` of a removed resource and `{Fn::GetAtt: [id, 'Arn']}` of a skipped one by literals. */
function replaceReferences(node: unknown, literal: (ref: string, attribute?: string) => unknown): unknown {
  if (Array.isArray(node)) return node.map((entry) => replaceReferences(entry, literal));
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1 && typeof object.Ref === 'string') return literal(object.Ref) ?? object;
  const getAtt = object['Fn::GetAtt'];
  if (keys.length === 1 && Array.isArray(getAtt) && typeof getAtt[0] === 'string') {
    return literal(getAtt[0], String(getAtt[1])) ?? object;
  }
  return Object.fromEntries(keys.map((key) => [key, replaceReferences(object[key], literal)]));
}

/** Resource types moto's CloudFormation has no model of: it leaves them blank, and an output reading one fails. */
const TYPES_MOTO_LACKS: readonly string[] = ['AWS::Lambda::Url'];

/** True when an output's value reads an attribute of a resource whose type moto lacks (the admin Function URL). */
function refersToUnknownType(value: unknown, template: Template): boolean {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | null)?.['Fn::GetAtt'];
  if (!Array.isArray(getAtt)) return false;
  return TYPES_MOTO_LACKS.includes(template.Resources[String(getAtt[0])]?.Type ?? '');
}

/**
 * The template moto deploys: the secrets removed (their references become the pre-created secrets' ARNs), no KMS
 * key tags (moto raises KeyError 'TagKey' yet reports CREATE_COMPLETE), and alarm ARNs as literals (moto skips
 * alarms, so the dashboard's Fn::GetAtt on them fails); queue URLs (a queue's Ref) name moto's host, not AWS's, which
 * moto's CloudFormation writes and every SDK client then sends to; an output reading a resource type moto lacks (the
 * admin Function URL) is left out (moto's CreateStack fails on it). A secret without an ARN in `secretArns` ▶ Error.
 */
function rewriteTemplateForMoto(template: Template, input: MotoRewriteInput): Template {
  const resources: Template['Resources'] = {};
  const alarms = new Set<string>();
  const queues = new Set<string>();
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::SecretsManager::Secret') {
      if (!input.secretArns[logicalId]) throw new Error(`secret ${logicalId} was not created before the deploy`);
      continue;
    }
    if (resource.Type === 'AWS::CloudWatch::Alarm') alarms.add(logicalId);
    if (resource.Type === 'AWS::SQS::Queue') queues.add(logicalId);
    if (resource.Type === 'AWS::KMS::Key' && resource.Properties) {
      const { Tags: _tags, ...properties } = resource.Properties;
      resources[logicalId] = { ...resource, Properties: properties };
      continue;
    }
    resources[logicalId] = resource;
  }
  const alarmArn = (id: string) => `arn:aws:cloudwatch:${input.region}:${input.account}:alarm:${input.stackName}-${id}`;
  const queueUrl = (id: string) => ({
    'Fn::Join': ['', [`${input.endpoint}/${input.account}/`, { 'Fn::GetAtt': [id, 'QueueName'] }]],
  });
  const literal = (id: string, attribute?: string) => {
    if (attribute === undefined && input.secretArns[id]) return input.secretArns[id];
    if (attribute === undefined && queues.has(id)) return queueUrl(id);
    if (attribute === 'Arn' && alarms.has(id)) return alarmArn(id);
    return undefined;
  };
  const rewritten = { ...template, Resources: replaceReferences(resources, literal) as Template['Resources'] };
  if (!template.Outputs) return rewritten;
  const kept = Object.entries(template.Outputs as Record<string, { Value: unknown }>).filter(
    ([, output]) => !refersToUnknownType(output.Value, template),
  );
  return { ...rewritten, Outputs: replaceReferences(Object.fromEntries(kept), literal) };
}

export { type MotoRewriteInput, rewriteTemplateForMoto, type SecretToCreate, secretsToCreate, type Template };
