import * as z from 'zod';
import { deadlineShardsSchema, queueUrlSchema, tableNameSchema } from '../../lib/rules.js';
import { TargetError } from './errors.js';
import { secretArnFlag } from './schemas.js';

/**
 * What the CLI needs of a deployment: names, and the settings it chose (read from it, never assumed). The project
 * stack (infra/app/stacks/leasefence-stack.ts) outputs all of them.
 */
interface StackOutputs {
  jobsTable: string;
  payloadsTable: string;
  queueUrl: string;
  /** Write shards of the deadline index the deployment was built with (the construct's `deadlineShards`). */
  deadlineShards: number;
  deadLetterQueueUrl?: string;
  examplesTable?: string;
  /** The construct's `environment` (its `Environment` output); absent on a stack that does not output it. */
  environment?: 'test' | 'staging' | 'production';
  /** The secret a check's fault plan is written to (the construct's faultInjection prop); absent: faults are off. */
  faultPlanSecretArn?: string;
  /** The secret audit pseudonyms are keyed by (the construct's identifierKeySecret); absent on a stack that does not output it. */
  identifierKeySecretArn?: string;
}

/** Optional peer: not a dependency of leasefence, loaded only when `--stack` is used. */
const CLOUDFORMATION_MODULE = '@aws-sdk/client-cloudformation';

const outputsSchema = z.object({
  JobsTableName: tableNameSchema,
  PayloadsTableName: tableNameSchema,
  QueueUrl: queueUrlSchema,
  DeadlineShards: z
    .string()
    .regex(/^[0-9]+$/)
    .transform(Number)
    .pipe(deadlineShardsSchema),
  DeadLetterQueueUrl: z.optional(queueUrlSchema),
  ExamplesTableName: z.optional(tableNameSchema),
  // Anything but a known value reads as unmarked (production to `check --stack`); it never breaks other commands.
  Environment: z.enum(['test', 'staging', 'production']).optional().catch(undefined),
  FaultPlanSecretArn: z.optional(secretArnFlag),
  IdentifierKeySecretArn: z.optional(secretArnFlag),
});

const REQUIRED_OUTPUTS = 'JobsTableName, PayloadsTableName, QueueUrl and DeadlineShards';

/** Every output `--stack` reads (required and optional): what a stack built around the construct should output. */
const CLI_STACK_OUTPUTS = Object.keys(outputsSchema.shape);

/** What the CLI uses of the CloudFormation client (loaded by name, so its types are not needed). */
interface CloudFormationModule {
  CloudFormationClient: new (config: {
    region?: string;
  }) => {
    send(
      command: unknown,
    ): Promise<{ Stacks?: Array<{ Outputs?: Array<{ OutputKey?: string; OutputValue?: string }> }> }>;
    destroy(): void;
  };
  DescribeStacksCommand: new (input: { StackName: string }) => unknown;
}

/**
 * Reads table names and queue URLs from a deployed stack's outputs. Without @aws-sdk/client-cloudformation
 * installed ▶ TargetError saying how to pass the names explicitly; a stack without the outputs ▶ TargetError.
 */
async function readStackOutputs(stackName: string, region: string | undefined): Promise<StackOutputs> {
  let sdk: CloudFormationModule;
  try {
    sdk = (await import(CLOUDFORMATION_MODULE)) as CloudFormationModule;
  } catch {
    throw new TargetError(
      `--stack needs ${CLOUDFORMATION_MODULE}, which is not installed. Either install it, or pass the stack's outputs ` +
        `explicitly: --jobs-table <JobsTableName> --payloads-table <PayloadsTableName> --queue-url <QueueUrl> ` +
        `--deadline-shards <DeadlineShards> --dlq-url <DeadLetterQueueUrl> (aws cloudformation describe-stacks --stack-name ${stackName} --query 'Stacks[0].Outputs')`,
    );
  }
  const client = new sdk.CloudFormationClient(region ? { region } : {});
  try {
    const output = await client.send(new sdk.DescribeStacksCommand({ StackName: stackName }));
    const pairs = (output.Stacks?.[0]?.Outputs ?? []).map((entry) => [entry.OutputKey, entry.OutputValue]);
    const parsed = outputsSchema.safeParse(Object.fromEntries(pairs));
    if (!parsed.success) {
      const missing = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
      throw new TargetError(
        `stack ${stackName} lacks the outputs ${REQUIRED_OUTPUTS} (missing or invalid: ${missing}); ` +
          'the shard count is never assumed: output it from the stack, or pass the names and --deadline-shards explicitly',
      );
    }
    return {
      jobsTable: parsed.data.JobsTableName,
      payloadsTable: parsed.data.PayloadsTableName,
      queueUrl: parsed.data.QueueUrl,
      deadlineShards: parsed.data.DeadlineShards,
      ...(parsed.data.DeadLetterQueueUrl ? { deadLetterQueueUrl: parsed.data.DeadLetterQueueUrl } : {}),
      ...(parsed.data.ExamplesTableName ? { examplesTable: parsed.data.ExamplesTableName } : {}),
      ...(parsed.data.Environment ? { environment: parsed.data.Environment } : {}),
      ...(parsed.data.FaultPlanSecretArn ? { faultPlanSecretArn: parsed.data.FaultPlanSecretArn } : {}),
      ...(parsed.data.IdentifierKeySecretArn ? { identifierKeySecretArn: parsed.data.IdentifierKeySecretArn } : {}),
    };
  } finally {
    client.destroy();
  }
}

export { CLI_STACK_OUTPUTS, readStackOutputs, type StackOutputs };
