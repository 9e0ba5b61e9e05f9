import { CreateTableCommand, type CreateTableCommandInput, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { jobsTableDefinition, payloadsTableDefinition } from '../../lib/store/index.js';

/** Names of the local tables and queues. Fixed, so data kept in `.local/` is found again after a restart. */
const LocalNames = {
  jobsTable: 'leasefence-jobs',
  payloadsTable: 'leasefence-payloads',
  queue: 'leasefence-jobs',
  deadLetterQueue: 'leasefence-jobs-dlq',
} as const;

/**
 * Queue settings of the local stack. maxReceiveCount is the construct's default (infra/construct/props.ts).
 * The visibility timeout is shorter than on AWS (6 x worker timeout there) because local pollers have no
 * function timeout: a message whose batch failed comes back after 30 s instead of 6 minutes.
 */
const LocalQueueSettings = { visibilityTimeoutSeconds: 30, maxReceiveCount: 5 } as const;

/** What the stack created (or found): table names and queue URLs. */
interface LocalResources {
  jobsTable: string;
  payloadsTable: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  /** Every table the stack created or found, by TableName (the jobs module's tables included). */
  tableNames: Readonly<Record<string, string>>;
}

/** Creates the table unless it exists (kept from an earlier run); returns whether it was created. */
async function ensureTable(client: DynamoDBDocumentClient, input: CreateTableCommandInput) {
  try {
    await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    return false;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(new CreateTableCommand(input));
  return true;
}

/** Creates the queue's DLQ, then the queue with its redrive policy (idempotent for the same settings). */
async function ensureQueues(sqs: SQSClient): Promise<{ queueUrl: string; deadLetterQueueUrl: string }> {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: LocalNames.deadLetterQueue }));
  const deadLetterQueueUrl = dlq.QueueUrl ?? '';
  const attributes = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const deadLetterTargetArn = attributes.Attributes?.QueueArn;
  if (!deadLetterTargetArn) throw new Error(`the SQS engine returned no ARN for ${LocalNames.deadLetterQueue}`);
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: LocalNames.queue,
      Attributes: {
        VisibilityTimeout: String(LocalQueueSettings.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn, maxReceiveCount: LocalQueueSettings.maxReceiveCount }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl ?? '', deadLetterQueueUrl };
}

/**
 * Creates what the construct deploys, from the same definitions (lib/store/table.ts):
 * the jobs and payloads tables, the jobs module's own tables, and the jobs queue with its DLQ.
 * Existing tables are kept.
 * TTL is not set: dynalite has no UpdateTimeToLive, so payload retention is not enforced locally.
 */
async function ensureLocalResources(
  client: DynamoDBDocumentClient,
  sqs: SQSClient,
  jobTables: readonly CreateTableCommandInput[] = [],
): Promise<LocalResources & { createdTables: string[] }> {
  const definitions = [
    jobsTableDefinition(LocalNames.jobsTable),
    payloadsTableDefinition(LocalNames.payloadsTable),
    ...jobTables,
  ];
  const createdTables: string[] = [];
  for (const definition of definitions) {
    if (await ensureTable(client, definition)) createdTables.push(definition.TableName ?? '');
  }
  const queues = await ensureQueues(sqs);
  return {
    jobsTable: LocalNames.jobsTable,
    payloadsTable: LocalNames.payloadsTable,
    ...queues,
    tableNames: Object.fromEntries(definitions.map((definition) => [definition.TableName, definition.TableName ?? ''])),
    createdTables,
  };
}

export { ensureLocalResources, LocalNames, LocalQueueSettings, type LocalResources };
