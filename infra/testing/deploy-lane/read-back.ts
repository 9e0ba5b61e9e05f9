import { CloudFormationClient, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { DescribeRuleCommand, EventBridgeClient, ListRuleNamesByTargetCommand } from '@aws-sdk/client-eventbridge';
import {
  GetFunctionCommand,
  GetFunctionUrlConfigCommand,
  LambdaClient,
  ListEventSourceMappingsCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** The three functions the construct deploys, told apart by the description it gives each. */
type FunctionRole = 'worker' | 'sweeper' | 'admin';

/** One deployed function as the Lambda API describes it (what Lambda would run). */
interface DeployedFunction {
  readonly role: FunctionRole;
  readonly name: string;
  readonly arn: string;
  readonly handler: string;
  readonly runtime: string;
  readonly executionRole: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly reservedConcurrency: number | undefined;
  readonly environment: Readonly<Record<string, string>>;
  readonly codeLocation: string;
  readonly codeSha256: string;
}

/** The worker's event source mapping: what the lane's poller follows. */
interface DeployedMapping {
  readonly uuid: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly windowSeconds: number;
  readonly maxConcurrency: number | undefined;
  readonly reportBatchItemFailures: boolean;
}

/** What was deployed, read back through the AWS APIs. */
interface DeployedStack {
  readonly functions: Readonly<Record<FunctionRole, DeployedFunction>>;
  readonly mapping: DeployedMapping;
  /** The sweeper's schedule expression (EventBridge rule targeting it). */
  readonly schedule: string;
  /** The admin Function URL; undefined where the API has none (moto skips AWS::Lambda::Url). */
  readonly adminUrl: string | undefined;
  /** Length of the identifier key read from Secrets Manager (the value itself is never printed). */
  readonly identifierKeyLength: number;
}

/** `leasefence worker: …` ▶ 'worker'; any other description ▶ undefined. */
function roleOf(description: string | undefined): FunctionRole | undefined {
  const match = /^leasefence (worker|sweeper|admin):/.exec(description ?? '');
  return match?.[1] as FunctionRole | undefined;
}

async function functionNames(stackName: string): Promise<string[]> {
  const cloudformation = new CloudFormationClient({});
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await cloudformation.send(new ListStackResourcesCommand({ StackName: stackName, NextToken: token }));
    for (const resource of page.StackResourceSummaries ?? []) {
      if (resource.ResourceType === 'AWS::Lambda::Function' && resource.PhysicalResourceId) {
        names.push(resource.PhysicalResourceId);
      }
    }
    token = page.NextToken;
  } while (token);
  cloudformation.destroy();
  return names;
}

async function readFunction(lambda: LambdaClient, name: string): Promise<DeployedFunction | undefined> {
  const answer = await lambda.send(new GetFunctionCommand({ FunctionName: name }));
  const config = answer.Configuration;
  const role = roleOf(config?.Description);
  if (!config || !role) return undefined;
  return {
    role,
    name,
    arn: String(config.FunctionArn),
    handler: String(config.Handler),
    runtime: String(config.Runtime),
    executionRole: String(config.Role),
    timeoutSeconds: config.Timeout ?? 3,
    memoryMb: config.MemorySize ?? 128,
    reservedConcurrency: answer.Concurrency?.ReservedConcurrentExecutions,
    environment: config.Environment?.Variables ?? {},
    codeLocation: String(answer.Code?.Location),
    codeSha256: String(config.CodeSha256),
  };
}

async function readMapping(lambda: LambdaClient, worker: DeployedFunction): Promise<DeployedMapping> {
  const answer = await lambda.send(new ListEventSourceMappingsCommand({ FunctionName: worker.name }));
  const mapping = answer.EventSourceMappings?.[0];
  if (!mapping) throw new Error(`no event source mapping for ${worker.name}`);
  return {
    uuid: String(mapping.UUID),
    queueArn: String(mapping.EventSourceArn),
    batchSize: mapping.BatchSize ?? 10,
    windowSeconds: mapping.MaximumBatchingWindowInSeconds ?? 0,
    maxConcurrency: mapping.ScalingConfig?.MaximumConcurrency,
    reportBatchItemFailures: (mapping.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
  };
}

async function readSchedule(sweeper: DeployedFunction): Promise<string> {
  const events = new EventBridgeClient({});
  try {
    const rules = await events.send(new ListRuleNamesByTargetCommand({ TargetArn: sweeper.arn }));
    const name = rules.RuleNames?.[0];
    if (!name) throw new Error(`no EventBridge rule targets ${sweeper.name}`);
    const rule = await events.send(new DescribeRuleCommand({ Name: name }));
    return String(rule.ScheduleExpression);
  } finally {
    events.destroy();
  }
}

async function readAdminUrl(lambda: LambdaClient, admin: DeployedFunction): Promise<string | undefined> {
  try {
    return (await lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: admin.name }))).FunctionUrl;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

async function readSecretLength(arn: string | undefined): Promise<number> {
  if (!arn) throw new Error('the worker has no LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN');
  const secrets = new SecretsManagerClient({});
  try {
    return (await secrets.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString?.length ?? 0;
  } finally {
    secrets.destroy();
  }
}

/**
 * Reads a deployed stack back the way Lambda runs it: each function's configuration and code location, the worker's
 * event source mapping, the sweeper's schedule, the admin URL and the identifier key. A function, mapping or rule
 * missing ▶ Error naming it (the deploy is not complete, whatever the CLI printed).
 */
async function readDeployedStack(stackName: string): Promise<DeployedStack> {
  const lambda = new LambdaClient({});
  try {
    const found = await Promise.all((await functionNames(stackName)).map((name) => readFunction(lambda, name)));
    const functions = Object.fromEntries(found.flatMap((fn) => (fn ? [[fn.role, fn]] : []))) as Record<
      FunctionRole,
      DeployedFunction
    >;
    for (const role of ['worker', 'sweeper', 'admin'] as const) {
      if (!functions[role]) throw new Error(`stack ${stackName} has no ${role} function`);
    }
    // Independent reads, sent at once.
    const [mapping, schedule, adminUrl, identifierKeyLength] = await Promise.all([
      readMapping(lambda, functions.worker),
      readSchedule(functions.sweeper),
      readAdminUrl(lambda, functions.admin),
      readSecretLength(functions.worker.environment.LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN),
    ]);
    return { functions, mapping, schedule, adminUrl, identifierKeyLength };
  } finally {
    lambda.destroy();
  }
}

/**
 * Disables the mapping in moto, whose own SQS poller would receive every message sent (counting a receive) to invoke
 * the function through Docker, fail without it, and return the message: the lane's poller takes its place.
 */
async function handOverMapping(mapping: DeployedMapping): Promise<void> {
  const lambda = new LambdaClient({});
  try {
    await lambda.send(new UpdateEventSourceMappingCommand({ UUID: mapping.uuid, Enabled: false }));
  } finally {
    lambda.destroy();
  }
}

export {
  type DeployedFunction,
  type DeployedMapping,
  type DeployedStack,
  type FunctionRole,
  handOverMapping,
  readDeployedStack,
  roleOf,
};
