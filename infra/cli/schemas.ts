import * as z from 'zod';
import { reasonSchema } from '../../lib/admin/schemas.js';
import { operationIdSchema, tenantIdSchema } from '../../lib/identity.js';
import { freeTextSchema } from '../../lib/internal/free-text.js';
import { deadlineShardsSchema, queueUrlSchema, tableNameSchema } from '../../lib/rules.js';
import type { OptionSpec } from './args.js';

/** Flags every command has (validated so parseArgs values pass the strict schemas). */
const commonShape = { json: z.boolean().optional(), help: z.boolean().optional() };

/** A decimal integer flag within [min, max]. */
function integerFlag(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]+$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

const DURATION_UNITS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration such as 30s, 10m, 2h or 3d, in milliseconds. */
const durationFlag = z
  .string()
  .regex(/^[0-9]{1,6}[smhd]$/, 'must be a duration like 30s, 10m, 2h or 3d')
  .transform((text) => Number(text.slice(0, -1)) * DURATION_UNITS[text.slice(-1) as keyof typeof DURATION_UNITS]);

/** A Secrets Manager secret's ARN (a flag's or a stack output's value). */
const secretArnFlag = z.string().regex(/^arn:[\w-]+:secretsmanager:/, 'must be a Secrets Manager secret ARN');

/** Identity arguments, checked with the library's own rules. */
const identityShape = { tenant: tenantIdSchema, operation: operationIdSchema };

/** Flags that choose what the command talks to: the local stack (default) or AWS. */
const TARGET_OPTIONS: Record<string, OptionSpec> = {
  'local-dir': { type: 'string', placeholder: '<path>', description: 'folder of the local stack (default .local)' },
  stack: { type: 'string', placeholder: '<name>', description: 'AWS: read tables and queues from this stack' },
  region: { type: 'string', placeholder: '<region>', description: 'AWS region (default AWS_REGION)' },
  profile: { type: 'string', placeholder: '<profile>', description: 'AWS credentials profile' },
  'jobs-table': { type: 'string', placeholder: '<name>', description: 'AWS: jobs table (instead of --stack)' },
  'payloads-table': { type: 'string', placeholder: '<name>', description: 'AWS: payloads table' },
  'queue-url': { type: 'string', placeholder: '<url>', description: 'AWS: jobs queue URL' },
  'dlq-url': { type: 'string', placeholder: '<url>', description: 'AWS: dead-letter queue URL (redrive)' },
  'deadline-shards': {
    type: 'string',
    placeholder: '<n>',
    description: "AWS: the deployment's deadline shards (its DeadlineShards output)",
  },
  'dynamodb-endpoint': { type: 'string', placeholder: '<url>', description: 'another DynamoDB engine (moto, …)' },
  'sqs-endpoint': { type: 'string', placeholder: '<url>', description: 'another SQS engine' },
  actor: { type: 'string', placeholder: '<name>', description: 'who is acting, for the audit trail' },
  'worker-max-run-ms': {
    type: 'string',
    placeholder: '<ms>',
    description: "the worker's timeout: --effect-did-not-happen waits this long after the last claim (default 900000)",
  },
};

const nameFlag = z.string().min(1).max(1024).optional();

/** Validated target flags (the keys are the flag names). */
const targetShape = {
  'local-dir': z.string().min(1).optional(),
  stack: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'must be a CloudFormation stack name')
    .optional(),
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-[0-9]$/, 'must be a region such as eu-west-1')
    .optional(),
  profile: nameFlag,
  'jobs-table': z.optional(tableNameSchema),
  'payloads-table': z.optional(tableNameSchema),
  'queue-url': z.optional(queueUrlSchema),
  'dlq-url': z.optional(queueUrlSchema),
  'deadline-shards': integerFlag(1, 1000).pipe(deadlineShardsSchema).optional(),
  'dynamodb-endpoint': z.url().optional(),
  'sqs-endpoint': z.url().optional(),
  actor: z.optional(freeTextSchema('actor', 256)),
  'worker-max-run-ms': integerFlag(0, Number.MAX_SAFE_INTEGER).optional(),
};

/** The validated target flags. */
type TargetFlags = z.infer<z.ZodObject<typeof targetShape>>;

/** The reason flag of audited actions. */
const reasonFlag = reasonSchema;

export {
  commonShape,
  durationFlag,
  identityShape,
  integerFlag,
  reasonFlag,
  secretArnFlag,
  TARGET_OPTIONS,
  type TargetFlags,
  targetShape,
};
