import * as z from 'zod';
import { queueUrlSchema, tableNameSchema } from './rules.js';
import { DEFAULT_DEADLINE_SHARDS } from './table.js';
import { parseInput } from './validation.js';

/** Environment variable names shared by the Lambda handlers, the CDK construct and the local stack. */
const EnvironmentVariable = {
  jobsTable: 'LEASEFENCE_JOBS_TABLE',
  payloadsTable: 'LEASEFENCE_PAYLOADS_TABLE',
  queueUrl: 'LEASEFENCE_QUEUE_URL',
  deadLetterQueueUrl: 'LEASEFENCE_DLQ_URL',
  deadlineShards: 'LEASEFENCE_DEADLINE_SHARDS',
  dynamodbEndpoint: 'LEASEFENCE_DYNAMODB_ENDPOINT',
  sqsEndpoint: 'LEASEFENCE_SQS_ENDPOINT',
  payloadRetentionDays: 'LEASEFENCE_PAYLOAD_RETENTION_DAYS',
} as const;

const configSchema = z.object({
  jobsTable: tableNameSchema,
  payloadsTable: tableNameSchema,
  queueUrl: queueUrlSchema.optional(),
  deadLetterQueueUrl: queueUrlSchema.optional(),
  deadlineShards: z.coerce.number().int().min(1).max(1000).default(DEFAULT_DEADLINE_SHARDS),
  dynamodbEndpoint: z.string().url().optional(),
  sqsEndpoint: z.string().url().optional(),
  payloadRetentionDays: z.coerce.number().int().min(1).max(3650).default(30),
});

/** Runtime configuration of a handler, read once from the environment. */
type LeasefenceConfig = z.infer<typeof configSchema>;

/** Reads and validates the configuration; InvalidInputError names the missing variable. */
function readConfig(env: NodeJS.ProcessEnv = process.env): LeasefenceConfig {
  const raw = Object.fromEntries(
    Object.entries(EnvironmentVariable)
      .map(([field, variable]) => [field, env[variable] === '' ? undefined : env[variable]])
      .filter(([, value]) => value !== undefined),
  );
  return parseInput(configSchema, raw, `environment (${Object.values(EnvironmentVariable).join(', ')})`);
}

export { EnvironmentVariable, type LeasefenceConfig, readConfig };
