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

// The schemas here are built by readConfig, not at import (test/unit/internal/module-scope-schemas.test.ts), and
// only for what it checks: an unset optional variable has nothing to check, so its schema is not built (issue #46:
// a worker reads 4 of the 14 variables, and the others' schemas were most of what its cold start built).
/** A Secrets Manager secret's ARN: one instance for every variable naming a secret. */
const secretArnSchema = builtOnce(() =>
  z.string().check(z.regex(/^arn:[\w-]+:secretsmanager:/, 'must be a Secrets Manager ARN')),
);

/** The variables every handler has: required, or with a default (so checked whether set or not). */
const requiredShape = () => ({
  jobsTable: tableNameSchema,
  payloadsTable: tableNameSchema,
  deadlineShards: z._default(z.pipe(z.coerce.number(), deadlineShardsSchema), DEFAULT_DEADLINE_SHARDS),
  payloadRetentionDays: z._default(
    z.coerce.number().check(z.int(), z.gte(RetentionDays.min), z.lte(RetentionDays.max)),
    RetentionDays.default,
  ),
});

/** The optional variables, each a builder of its schema: called only when its variable is set. */
const optionalSchemas = {
  queueUrl: () => queueUrlSchema,
  bulkQueueUrl: () => queueUrlSchema,
  deadLetterQueueUrl: () => queueUrlSchema,
  dynamodbEndpoint: () => z.string().check(z.url()),
  sqsEndpoint: () => z.string().check(z.url()),
  disabledJobTypes: () =>
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
  identifierKeySecretArn: secretArnSchema,
  faultPlanSecretArn: secretArnSchema,
  adminRoutePrincipals: () => jsonVariable(routePrincipalsSchema),
  senderTenants: () => jsonVariable(senderTenantsSchema),
  inlinePayloads: () => inlinePayloadsSchema,
  workerMaxRunMs: () => z.coerce.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)),
};

type OptionalShape = {
  [Field in keyof typeof optionalSchemas]: z.ZodMiniOptional<ReturnType<(typeof optionalSchemas)[Field]>>;
};
/** The whole configuration's schema, as a type: every optional variable optional. */
type ConfigSchema = z.ZodMiniObject<ReturnType<typeof requiredShape> & OptionalShape>;

/** Runtime configuration of a handler, read once from the environment. */
type LeasefenceConfig = z.infer<ConfigSchema>;

/**
 * The configuration's schema for `raw`: the required fields, and the optional ones `raw` sets (their schemas as
 * they are: a set value is checked exactly as `z.optional` of it would check it; an unset one needs no check).
 */
function configSchemaFor(raw: Readonly<Record<string, unknown>>): ConfigSchema {
  const optional = Object.entries(optionalSchemas)
    .filter(([field]) => raw[field] !== undefined)
    .map(([field, build]) => [field, build()]);
  return z.object({ ...requiredShape(), ...Object.fromEntries(optional) }) as unknown as ConfigSchema;
}

/** Reads and validates the configuration; InvalidInputError names the missing variable. */
function readConfig(env: NodeJS.ProcessEnv = process.env): LeasefenceConfig {
  const raw = Object.fromEntries(
    Object.entries(EnvironmentVariable)
      .map(([field, variable]) => [field, env[variable] === '' ? undefined : env[variable]])
      .filter(([, value]) => value !== undefined),
  );
  return parseInput(configSchemaFor(raw), raw, `environment (${Object.values(EnvironmentVariable).join(', ')})`, {
    once: true,
  });
}

/*
 * Pay for what you use at a cold start (issue #46): a capability the construct knows is off (the fault layer, flow
 * control) is defined out at build time: the code reads the constant (`process.env.X === 'omitted' ? undefined : …`,
 * spelled out where it decides, since esbuild folds it only there) and esbuild drops what only the dead branch uses.
 * Everything else a function may run is imported statically, its module scope declarations only (schemas through
 * z.lazy or builtOnce). No bundled module is reached by `import()`: in the one-file bundle esbuild wraps such a module
 * and everything it imports (zod, Powertools, the store) in lazy initialisers, which cost the worker more at import
 * than the modules they deferred (measured, test/bench/README.md "Cold start"). `import()` stays for what is not
 * bundled (the AWS SDK's SQS and Secrets Manager clients, the OpenTelemetry API). test/infra/init-path.test.ts pins it.
 */

/**
 * A build-time constant, not a deployed variable: a worker bundled with it defined as `'omitted'` (the construct,
 * without faultInjection) has no fault layer at all, since esbuild drops the code behind it (lib/lambda/fault-switch.ts).
 */
const FAULT_LAYER_CONSTANT = 'process.env.LEASEFENCE_FAULT_LAYER';

/**
 * A build-time constant, like FAULT_LAYER_CONSTANT: a worker bundled with it defined as `'omitted'` (the construct,
 * without `flowControl`) has no concurrency-slot code, no rate gate, no store flow facet (WorkItemStore.flow():
 * slots, budgets, their waits) and no limits' schemas; defineJob refuses a job type declaring `flow.concurrency` or
 * `flow.rateLimit` (JobDefinitionError naming the prop) and the runtime refuses one at start (ConfigurationError):
 * none is ever run unlimited.
 */
const FLOW_CONTROL_CONSTANT = 'process.env.LEASEFENCE_FLOW_CONTROL';

export { EnvironmentVariable, FAULT_LAYER_CONSTANT, FLOW_CONTROL_CONSTANT, type LeasefenceConfig, readConfig };
