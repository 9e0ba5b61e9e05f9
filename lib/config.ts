import * as z from 'zod/mini';
import { routePrincipalsSchema } from './admin/route-principals.js';
import { builtOnce } from './internal/memoize.js';
import { parseInput } from './internal/validation.js';
import { senderTenantsSchema } from './messaging/sender-tenants.js';
import {
  deadlineShardsSchema,
  inlinePayloadsSchema,
  jobTypeSchema,
  queueUrlSchema,
  RetentionDays,
  tableNameSchema,
} from './rules.js';
import { DEFAULT_DEADLINE_SHARDS } from './store/index.js';

/** Environment variable names shared by the Lambda handlers, the CDK construct and the local stack. */
const EnvironmentVariable = {
  jobsTable: 'LEASEFENCE_JOBS_TABLE',
  payloadsTable: 'LEASEFENCE_PAYLOADS_TABLE',
  queueUrl: 'LEASEFENCE_QUEUE_URL',
  /** The bulk lane's queue (set by the construct with `priorities`): bulk jobs' wake-ups go back to it. */
  bulkQueueUrl: 'LEASEFENCE_BULK_QUEUE_URL',
  deadLetterQueueUrl: 'LEASEFENCE_DLQ_URL',
  deadlineShards: 'LEASEFENCE_DEADLINE_SHARDS',
  dynamodbEndpoint: 'LEASEFENCE_DYNAMODB_ENDPOINT',
  sqsEndpoint: 'LEASEFENCE_SQS_ENDPOINT',
  payloadRetentionDays: 'LEASEFENCE_PAYLOAD_RETENTION_DAYS',
  /** Comma-separated job types switched off in this deployment (their messages wait; see the worker runtime). */
  disabledJobTypes: 'LEASEFENCE_DISABLED_JOB_TYPES',
  /** Secrets Manager secret holding the key identifiers are hashed with in logs (set by the construct). */
  identifierKeySecretArn: 'LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN',
  /** JSON: per admin route, the principals allowed to use it (lib/admin/route-principals.ts; set by the construct). */
  adminRoutePrincipals: 'LEASEFENCE_ADMIN_ROUTE_PRINCIPALS',
  /** JSON: which senders (SQS SenderId) may produce for which tenants (lib/messaging/sender-tenants.ts; set by the construct). */
  senderTenants: 'LEASEFENCE_SENDER_TENANTS',
  /** JSON: the schedules a tick function enqueues (lib/messaging/schedules-variable.ts; set by the construct). */
  schedules: 'LEASEFENCE_SCHEDULES',
  /** `accept` (default) or `refuse`: payload bodies carried in messages (lib/worker/carried-payload.ts). */
  inlinePayloads: 'LEASEFENCE_INLINE_PAYLOADS',
  /**
   * Secrets Manager secret holding a stack check's fault plan (lib/fault-injection; set by the construct only with
   * its faultInjection prop, on a test or staging stack). Unset: no fault layer is ever loaded.
   */
  faultPlanSecretArn: 'LEASEFENCE_FAULT_PLAN_SECRET_ARN',
  /**
   * The worker function's timeout in ms (set by the construct on the admin function): the statement "the effect did
   * not happen" is accepted only that long after the job's last claim. Unset: 15 minutes, Lambda's ceiling.
   */
  workerMaxRunMs: 'LEASEFENCE_WORKER_MAX_RUN_MS',
} as const;

/** An environment variable holding JSON that must match `schema` (text that is not JSON is an issue, not a throw). */
function jsonVariable<S extends z.core.$ZodType>(schema: S) {
  return z.pipe(
    z.pipe(
      z.string(),
      z.transform((text, context) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          context.issues.push({ code: 'custom', message: 'must be JSON', input: text });
          return z.NEVER;
        }
      }),
    ),
    schema,
  );
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import:
// readConfig parses them once (at import, in a handler), so one build either way
// (test/unit/internal/module-scope-schemas.test.ts).
/** A Secrets Manager secret's ARN: one instance for every variable naming a secret (built with the config schema). */
const secretArnSchema = builtOnce(() =>
  z.string().check(z.regex(/^arn:[\w-]+:secretsmanager:/, 'must be a Secrets Manager ARN')),
);

const configSchema = z.lazy(() => {
  // One instance for the three queue variables (the cold start builds each instance it names).
  const optionalQueueUrl = z.optional(queueUrlSchema);
  return z.object({
    jobsTable: tableNameSchema,
    payloadsTable: tableNameSchema,
    queueUrl: optionalQueueUrl,
    bulkQueueUrl: optionalQueueUrl,
    deadLetterQueueUrl: optionalQueueUrl,
    deadlineShards: z._default(z.pipe(z.coerce.number(), deadlineShardsSchema), DEFAULT_DEADLINE_SHARDS),
    dynamodbEndpoint: z.optional(z.string().check(z.url())),
    sqsEndpoint: z.optional(z.string().check(z.url())),
    payloadRetentionDays: z._default(
      z.coerce.number().check(z.int(), z.gte(RetentionDays.min), z.lte(RetentionDays.max)),
      RetentionDays.default,
    ),
    disabledJobTypes: z.optional(
      z.pipe(
        z.pipe(
          z.string(),
          z.transform((list) =>
            list
              .split(',')
              .map((type) => type.trim())
              .filter((type) => type.length > 0),
          ),
        ),
        z.array(jobTypeSchema),
      ),
    ),
    identifierKeySecretArn: z.optional(secretArnSchema()),
    faultPlanSecretArn: z.optional(secretArnSchema()),
    adminRoutePrincipals: z.optional(jsonVariable(routePrincipalsSchema)),
    senderTenants: z.optional(jsonVariable(senderTenantsSchema)),
    inlinePayloads: z.optional(inlinePayloadsSchema),
    workerMaxRunMs: z.optional(z.coerce.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER))),
  });
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
  return parseInput(configSchema, raw, `environment (${Object.values(EnvironmentVariable).join(', ')})`, {
    once: true,
  });
}

/**
 * A build-time constant, not a deployed variable: a worker bundled with it defined as `'omitted'` (the construct,
 * without faultInjection) has no fault layer at all, since esbuild drops the code behind it (lib/lambda/fault-switch.ts).
 */
const FAULT_LAYER_CONSTANT = 'process.env.LEASEFENCE_FAULT_LAYER';

/**
 * A build-time constant, like FAULT_LAYER_CONSTANT: a worker bundled with it defined as `'omitted'` (the construct,
 * without `flowControl`) has no concurrency-slot code (lib/store/flow-control/slot-loader.ts), no rate gate and no
 * budgets room; it refuses at start a job type that declares concurrency limits (ConfigurationError), and defineJob
 * refuses one declaring `flow.rateLimit` (JobDefinitionError naming the prop): none is ever run unlimited.
 */
const FLOW_CONTROL_CONSTANT = 'process.env.LEASEFENCE_FLOW_CONTROL';

export { EnvironmentVariable, FAULT_LAYER_CONSTANT, FLOW_CONTROL_CONSTANT, type LeasefenceConfig, readConfig };
