import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import type { LeasefenceConfig } from '../../lib/config.js';
import { createDocumentClient } from '../../lib/document-client.js';
import { RetentionDays } from '../../lib/rules.js';
import { createSqsClient } from '../../lib/sqs-client.js';
import { createLeasefenceTablePair } from './tables.js';

/** Endpoints of the engines the global setup started (or DYNAMODB_ENDPOINT / SQS_ENDPOINT). */
function engineEndpoints(): { dynamo: string; sqs: string; engineName: string; transactions: boolean } {
  return {
    dynamo: inject('dynamoEndpoint'),
    sqs: inject('sqsEndpoint'),
    engineName: inject('engineName'),
    transactions: inject('transactions'),
  };
}

/** A DocumentClient on the test engine. `maxAttempts` 1 disables SDK retries. */
function testDocumentClient(options: { maxAttempts?: number } = {}): DynamoDBDocumentClient {
  return createDocumentClient({ endpoint: engineEndpoints().dynamo, ...options });
}

/** An SQS client on the test engine. */
function testSqsClient(): SQSClient {
  return createSqsClient({ endpoint: engineEndpoints().sqs });
}

/** A name no other test file uses. */
function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Jobs and payloads tables of one test file, made from the library's own definitions. */
interface TestTables {
  jobsTable: string;
  payloadsTable: string;
  drop(): Promise<void>;
}

/** Creates fresh jobs + payloads tables (isolation per test file). */
async function createTestTables(prefix = 'lf'): Promise<TestTables> {
  const client = testDocumentClient();
  const jobsTable = uniqueName(`${prefix}-jobs`);
  const payloadsTable = uniqueName(`${prefix}-payloads`);
  await createLeasefenceTablePair(client, { jobsTable, payloadsTable });
  return {
    jobsTable,
    payloadsTable,
    drop: async () => {
      await client.send(new DeleteTableCommand({ TableName: jobsTable }));
      await client.send(new DeleteTableCommand({ TableName: payloadsTable }));
      client.destroy();
    },
  };
}

/** Creates a fresh queue with a DLQ on the SQS engine. */
async function createTestQueue(
  sqs: SQSClient,
  prefix = 'lf',
  options: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number } = {},
): Promise<{ queueUrl: string; dlqUrl: string }> {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName(`${prefix}-dlq`) }));
  const dlqUrl = dlq.QueueUrl ?? '';
  const dlqArn = `arn:aws:sqs:us-east-1:000000000000:${dlqUrl.split('/').pop()}`;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: uniqueName(`${prefix}-jobs`),
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: options.maxReceiveCount ?? 5 }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl ?? '', dlqUrl };
}

/** The handler configuration (lib/config.ts shape) for a test's own tables and queue on the test engines. */
function testHandlerConfig(
  tables: Pick<TestTables, 'jobsTable' | 'payloadsTable'>,
  queue: { queueUrl: string; dlqUrl: string },
): LeasefenceConfig {
  return {
    jobsTable: tables.jobsTable,
    payloadsTable: tables.payloadsTable,
    queueUrl: queue.queueUrl,
    deadLetterQueueUrl: queue.dlqUrl,
    deadlineShards: 8,
    payloadRetentionDays: RetentionDays.default,
    dynamodbEndpoint: engineEndpoints().dynamo,
    // The worker sends a retry's own wake-up to its queue: the test engine's, never AWS.
    sqsEndpoint: engineEndpoints().sqs,
  };
}

export {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testDocumentClient,
  testHandlerConfig,
  testSqsClient,
  uniqueName,
};
