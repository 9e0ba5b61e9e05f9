import * as z from 'zod';
import { queueUrlSchema, tableNameSchema } from '../../lib/rules.js';
import { TargetError } from './errors.js';

/** The outputs of the project stack (infra/app/stacks/leasefence-stack.ts) the CLI needs. */
interface StackOutputs {
  jobsTable: string;
  payloadsTable: string;
  queueUrl: string;
  deadLetterQueueUrl?: string;
  examplesTable?: string;
}

/** Optional peer: not a dependency of leasefence, loaded only when `--stack` is used. */
const CLOUDFORMATION_MODULE = '@aws-sdk/client-cloudformation';

const outputsSchema = z.object({
  JobsTableName: tableNameSchema,
  PayloadsTableName: tableNameSchema,
  QueueUrl: queueUrlSchema,
  DeadLetterQueueUrl: queueUrlSchema.optional(),
  ExamplesTableName: tableNameSchema.optional(),
});

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
        `--dlq-url <DeadLetterQueueUrl> (aws cloudformation describe-stacks --stack-name ${stackName} --query 'Stacks[0].Outputs')`,
    );
  }
  const client = new sdk.CloudFormationClient(region ? { region } : {});
  try {
    const output = await client.send(new sdk.DescribeStacksCommand({ StackName: stackName }));
    const pairs = (output.Stacks?.[0]?.Outputs ?? []).map((entry) => [entry.OutputKey, entry.OutputValue]);
    const parsed = outputsSchema.safeParse(Object.fromEntries(pairs));
    if (!parsed.success) {
      throw new TargetError(`stack ${stackName} lacks the outputs JobsTableName, PayloadsTableName and QueueUrl`);
    }
    return {
      jobsTable: parsed.data.JobsTableName,
      payloadsTable: parsed.data.PayloadsTableName,
      queueUrl: parsed.data.QueueUrl,
      ...(parsed.data.DeadLetterQueueUrl ? { deadLetterQueueUrl: parsed.data.DeadLetterQueueUrl } : {}),
      ...(parsed.data.ExamplesTableName ? { examplesTable: parsed.data.ExamplesTableName } : {}),
    };
  } finally {
    client.destroy();
  }
}

export { readStackOutputs, type StackOutputs };
