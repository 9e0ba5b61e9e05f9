import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
// A named import, not `z.core.$ZodType`: esbuild keeps a namespace read as a value whole (every locale with it).
import { $ZodType } from 'zod/v4/core';
import { alertRouteSchema } from './alert-route.js';
import { type ApprovalPolicy, approvalPolicySchema } from './approval-policy.js';
import { ConfigurationError, JobDefinitionError } from './errors.js';
import type { FencedRecords } from './fenced/records.js';
import type { FencedTransactions } from './fenced/transaction.js';
import { type ConcurrencyLimits, parseConcurrencyLimits } from './flow-control/concurrency-limits.js';
import { type Priority, parsePriority } from './flow-control/priorities.js';
import { parseRateLimits, type RateLimit, type RateLimitDeclaration } from './flow-control/rate-limits.js';
import type { JobIdentity } from './identity.js';
import { parseInput } from './internal/validation.js';
import { jobTypeSchema, maxAttemptsSchema } from './rules.js';
import type { Claim, JobOutcome, OwnedRecordRef } from './store/index.js';

/**
 * Where a job's side effect lands, and so what leasefence can honestly promise:
 * A shared DynamoDB record (fenced transaction), B a record owned by this operation (writer_epoch),
 * C an external API with idempotency key + lookup (dedupe, not fencing), D no key, no lookup (one attempt).
 */
const TargetClass = { A: 'A', B: 'B', C: 'C', D: 'D' } as const;
type TargetClass = (typeof TargetClass)[keyof typeof TargetClass];

/** What a duplicate of the job's side effect does: the seed's first rollout step inventories job types by it. */
const Reversibility = { reversible: 'reversible', idempotent: 'idempotent', irreversible: 'irreversible' } as const;
type Reversibility = (typeof Reversibility)[keyof typeof Reversibility];

/** What a provider client is built from (the runtime's DynamoDB client, for providers that keep state there). */
interface ProviderDependencies {
  readonly client: DynamoDBDocumentClient;
}

/**
 * The client through which a class C or D job reaches its external system, injected as `ctx.provider`.
 * Declaring it makes the external effect observable: a conformance harness counts the calls to the
 * `effects` methods and can make them time out. Methods not listed (lookups) are counted as reads. The
 * runtime guards the `effects` methods like `ctx.step`: in lease doubt a call throws LeaseInDoubtError
 * before the provider is called.
 */
interface ProviderDeclaration<Client = unknown> {
  create(deps: ProviderDependencies): Client;
  /** Names of the client's methods that cause the side effect. */
  readonly effects: readonly string[];
  /**
   * Class C: how long the provider keeps an idempotency key and answers a lookup by it (ms). Past it a lookup can
   * answer not_done for an effect that happened, so an operator retry of an item whose last attempt is older
   * needs the statement that the effect did not happen, as class D does. `check` fails a class C job without it.
   */
  readonly keyRetentionMs?: number;
}

/** What `reconcile` learned from the authoritative system before a retry. */
type ReconcileResult =
  | { status: 'done'; outcome: JobOutcome }
  | { status: 'not_done' }
  | { status: 'cannot_tell'; reason: string };

/**
 * How a job names a successor (`ctx.enqueue`): `name` (default: the successor's job type), stable across attempts,
 * making the operation id `<parent operation id>/<name>`; or an explicit `operationId`. The tenant is the parent's.
 */
interface SuccessorOptions {
  name?: string;
  operationId?: string;
}

/**
 * Flow control a job type declares (issue #42; README, "Concurrency limits" and "Flow control: rate limits and priorities"): how many
 * of its jobs run at once, its providers' rate limits and its priority lane. Limits govern liveness, never safety:
 * the fence still decides whose writes count. Validated by defineJob (JobDefinitionError naming the field).
 */
interface JobFlowInput<Payload> {
  /** Caps on its jobs running at once, per type, tenant or payload key (lib/flow-control/concurrency-limits.ts). */
  readonly concurrency?: ConcurrencyLimits<Payload>;
  /** One provider budget or several: a job over budget waits before the call, using no attempt. */
  readonly rateLimit?: RateLimitDeclaration<Payload> | readonly RateLimitDeclaration<Payload>[];
  /** The lane of this type's wake-ups (retries, budget waits) and, through `sendJob`'s default, its first send. */
  readonly priority?: Priority;
}

/** A job type's flow control as parsed: rate limits as a list with their defaults filled in. */
interface JobFlow<Payload> {
  readonly concurrency?: ConcurrencyLimits<Payload>;
  readonly rateLimit?: readonly RateLimit<Payload>[];
  readonly priority?: Priority;
}

/** Everything a running job may use. Writes to protected state go through the fenced helpers only. */
interface JobContext<out Payload, out Provider = unknown> {
  readonly identity: JobIdentity;
  readonly claim: Claim;
  readonly fence: number;
  readonly attempt: number;
  readonly payload: Payload;
  /** Aborted when a heartbeat or fenced write reports that ownership was lost: stop at once. */
  readonly signal: AbortSignal;
  /** Tenant-scoped, stable across attempts, different across tenants: the key for class C APIs. */
  readonly idempotencyKey: string;
  /** The DynamoDB client the runtime uses (reads of the job's own data; writes go through `records`). */
  readonly client: DynamoDBDocumentClient;
  /** Class B fenced writes bound to this claim; a rejection aborts `signal` and stops the job. */
  readonly records: FencedRecords;
  /** Class A fenced transactions bound to this claim: each step lands once across takeovers. */
  readonly transactions: FencedTransactions;
  /** Report progress; the lease is renewed only when progress was reported since the last renewal. */
  progress(): void;
  /**
   * A durable step: runs once across takeovers; a later holder gets the recorded result without running it.
   * Shares its record of done steps and its name rule (1–64 chars of `[A-Za-z0-9._:-]`) with
   * `transactions.runStep`; the result is at most 16 KB of JSON (InvalidInputError otherwise, nothing recorded).
   */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Asks for a successor job, written with this job's completion and only if it commits: in the same
   * TransactWriteItems as the completion, under this claim's fence, where the engine has transactions (a
   * superseded holder enqueues nothing; a takeover asks again and gets the same identity, so never twice); as a
   * durable step before the completion where it has none (README, "Successor jobs"). The successor's tenant is
   * this job's; its operation id is `<this operation id>/<name>` (`name` defaults to the job type; keep it stable
   * across attempts) or `options.operationId`. Returns that identity. SuccessorRefusedError (unregistered type,
   * payload failing its schema or over 64 KB, more than 49 per completion, one identity for two jobs): nothing written.
   * Not with `transactions.complete` (return the outcome instead).
   */
  enqueue(jobType: string, payload: unknown, options?: SuccessorOptions): JobIdentity;
  /**
   * Takes one token from the budget this job type declares for `provider` (`flow.rateLimit`), waiting in process
   * while the wait is short; call it right before the provider call. A longer wait ends the attempt as a budget
   * wait (RateLimitedError, thrown here): the job goes back to queued with its attempt given back and a delayed
   * wake-up, unless an effect already started in this attempt, then it is a retryable failure. InvalidInputError for
   * a provider the type does not declare (nothing taken).
   */
  rateLimit(provider: string): Promise<void>;
  /**
   * The client the definition's `provider` declares (class C/D), built for this attempt; undefined without one.
   * Its `effects` methods refuse to start in lease doubt (LeaseInDoubtError, the provider is not called).
   */
  readonly provider: Provider;
}

/**
 * A job type: its payload schema, its target class and controls, and the code that runs it. Covariant in
 * `Payload` (`out`): a job of `{ a: string }` is a job of `unknown`, so a list of differently-typed jobs needs
 * no cast. Sound because the worker calls `run`/`reconcile` only with what that job's own `payload` parsed.
 * Covariant in `Provider` too: the worker hands `run` the client this job's own `provider.create` built.
 */
interface JobDefinition<out Payload = unknown, out Provider = unknown> {
  readonly type: string;
  /** The one version this worker runs: a message naming another `jobVersion` is quarantined (job_version_unsupported). */
  readonly version: number;
  readonly payload: z.core.$ZodType<Payload>;
  readonly target: TargetClass;
  readonly maxAttempts: number;
  readonly leaseMs: number;
  readonly retry: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  /** Who answers for this job type (team or person): the go/no-go's named owner. */
  readonly owner?: string;
  /**
   * Where this job type's alarms go (lib/alert-route.ts): an SNS topic ARN, or a label on the construct's alarm
   * topic that subscribers filter on (`pagerduty:payments`). Pass `alertRoutesOf(jobs)` to the construct.
   */
  readonly alertRoute?: string;
  /** What a duplicate side effect would do: reversible, idempotent or irreversible. */
  readonly reversibility?: Reversibility;
  /** The external system's client (class C/D), injected as `ctx.provider`. */
  readonly provider?: ProviderDeclaration<Provider>;
  /**
   * The class B records this job type owns for an identity (derived from it, never from the payload): each claim
   * names them on the row and a cancel stamps them with its fence, so a cancelled holder's next record write is
   * refused at once. Without it, a cancel reaches a running holder at its next work-item write.
   */
  readonly ownedRecords?: (identity: JobIdentity) => readonly OwnedRecordRef[];
  /**
   * The tables this job type's fenced writes land in (class B records carrying `writer_epoch`, class A
   * transactions). After a restore, raise-fences reads the highest `writer_epoch` in them to find the floor
   * every new fence must clear; a table left out is a floor raise-fences cannot see.
   */
  readonly recordTables?: readonly string[];
  /**
   * The approval gate (always, or by a predicate on the parsed payload): a gated job is created awaiting_approval,
   * before any attempt, and runs only once approved for the payload hash the approver saw (README, "Approvals").
   */
  readonly approval?: ApprovalPolicy<Payload>;
  /** Flow control: concurrency limits, rate limits, priority; none declared costs the worker nothing. */
  readonly flow?: JobFlow<Payload>;
  run(context: JobContext<Payload, Provider>): Promise<JobOutcome>;
  reconcile?(context: JobContext<Payload, Provider>): Promise<ReconcileResult>;
}

/** A job of any payload type: what the worker handler, the registry and a list of jobs hold. */
type AnyJobDefinition = JobDefinition<unknown>;

/** Input of defineJob: defaults fill maxAttempts (3; 1 for class D), leaseMs (30 s) and retry backoff. */
interface JobDefinitionInput<Payload, Provider = unknown> {
  type: string;
  version: number;
  payload: z.core.$ZodType<Payload>;
  target: TargetClass;
  maxAttempts?: number;
  leaseMs?: number;
  retry?: { baseDelayMs?: number; maxDelayMs?: number };
  owner?: string;
  alertRoute?: string;
  reversibility?: Reversibility;
  provider?: ProviderDeclaration<Provider>;
  ownedRecords?: JobDefinition<Payload, Provider>['ownedRecords'];
  recordTables?: readonly string[];
  approval?: ApprovalPolicy<Payload>;
  flow?: JobFlowInput<Payload>;
  run: JobDefinition<Payload, Provider>['run'];
  reconcile?: JobDefinition<Payload, Provider>['reconcile'];
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import:
// defineJob parses them once per job type, so one build either way
// (test/unit/internal/module-scope-schemas.test.ts).
const definitionShape = z.lazy(() =>
  z.object({
    type: jobTypeSchema,
    version: z.number().check(z.int(), z.gte(1)),
    target: z.enum(['A', 'B', 'C', 'D']),
    maxAttempts: maxAttemptsSchema,
    leaseMs: z.number().check(z.int(), z.gte(1_000), z.lte(12 * 60 * 60 * 1000)),
    retry: z.object({
      baseDelayMs: z.number().check(z.int(), z.gte(0)),
      maxDelayMs: z.number().check(z.int(), z.gte(0)),
    }),
    owner: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    alertRoute: z.optional(alertRouteSchema),
    reversibility: z.optional(z.enum(['reversible', 'idempotent', 'irreversible'])),
    recordTables: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'a DynamoDB table name')))),
  }),
);

const providerShape = z.lazy(() =>
  z.object({
    create: z.custom<ProviderDeclaration['create']>((value) => typeof value === 'function', 'must be a function'),
    effects: z.array(z.string().check(z.minLength(1))).check(z.minLength(1, 'name at least one effect method')),
    keyRetentionMs: z.optional(z.number().check(z.int(), z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
  }),
);

/** The target-class controls; returns the first missing one as a sentence, or undefined when all hold. */
function missingControl(definition: {
  type: string;
  target: TargetClass;
  maxAttempts: number;
  reconcile?: unknown;
  run?: unknown;
}): string | undefined {
  if (typeof definition.run !== 'function') return `job type ${definition.type}: run(context) is required`;
  if (definition.target === 'C' && typeof definition.reconcile !== 'function') {
    return `job type ${definition.type} is class C (external API with idempotency key) but defines no reconcile(): a retry must look up the first attempt's result before calling again`;
  }
  if (definition.target === 'D' && definition.maxAttempts > 1) {
    return `job type ${definition.type} is class D (no idempotency key, no lookup) but allows ${definition.maxAttempts} attempts: class D allows exactly one attempt`;
  }
  return undefined;
}

/**
 * Declares a job type. Refused (JobDefinitionError naming the missing control) when class C has no
 * reconcile or class D allows more than one attempt, or naming the field when an approval policy is malformed.
 * @example
 * const refund = defineJob({ type: 'refund', version: 1, target: 'C', payload: z.object({ amount: z.number() }),
 *   run: async (ctx) => ({ outcomeCode: 'sent' }), reconcile: async (ctx) => ({ status: 'not_done' }) });
 */
function defineJob<Payload, Provider = unknown>(
  input: JobDefinitionInput<Payload, Provider>,
): JobDefinition<Payload, Provider> {
  const maxAttempts = input.maxAttempts ?? (input.target === 'D' ? 1 : 3);
  const shape = {
    type: input.type,
    version: input.version,
    target: input.target,
    maxAttempts,
    leaseMs: input.leaseMs ?? 30_000,
    retry: { baseDelayMs: input.retry?.baseDelayMs ?? 1_000, maxDelayMs: input.retry?.maxDelayMs ?? 300_000 },
    ...(input.owner !== undefined ? { owner: input.owner } : {}),
    ...(input.alertRoute !== undefined ? { alertRoute: input.alertRoute } : {}),
    ...(input.reversibility !== undefined ? { reversibility: input.reversibility } : {}),
    ...(input.recordTables !== undefined ? { recordTables: Object.freeze([...input.recordTables]) } : {}),
  };
  let flow: JobFlow<Payload> | undefined;
  try {
    // Definitions are made at module scope, once per process: the cold start parses them (see parseInput's once).
    parseInput(definitionShape, shape, `job definition ${String(input.type)}`, { once: true });
    if (input.provider !== undefined)
      parseInput(providerShape, input.provider, `job definition ${input.type}: provider`, { once: true });
    if (input.approval !== undefined)
      parseInput(approvalPolicySchema, input.approval, `job definition ${input.type}: approval`, { once: true });
    flow = input.flow !== undefined ? parseFlow(input.type, input.flow) : undefined;
  } catch (error) {
    throw new JobDefinitionError((error as Error).message);
  }
  if (input.ownedRecords !== undefined && typeof input.ownedRecords !== 'function')
    throw new JobDefinitionError(`job type ${input.type}: ownedRecords must be a function of the identity`);
  // No rate limit gets this far in a worker bundled without flow control (refused above): defined out there.
  if (
    process.env.LEASEFENCE_FLOW_CONTROL !== 'omitted' &&
    input.target === 'D' &&
    flow?.rateLimit?.some((limit) => limit.take === 'in-job')
  )
    throw new JobDefinitionError(
      `job type ${input.type} is class D: its rate limits take their tokens before the run (take 'before-run'), since an attempt given back after its claim could never run again`,
    );
  const missing = missingControl({ ...shape, reconcile: input.reconcile, run: input.run });
  if (missing) throw new JobDefinitionError(missing);
  if (!(input.payload instanceof $ZodType))
    throw new JobDefinitionError(`job type ${input.type}: payload must be a zod schema`);
  return Object.freeze({
    ...shape,
    payload: input.payload,
    run: input.run,
    ...(input.reconcile ? { reconcile: input.reconcile } : {}),
    ...(input.provider ? { provider: input.provider } : {}),
    ...(input.ownedRecords ? { ownedRecords: input.ownedRecords } : {}),
    ...(input.approval ? { approval: Object.freeze({ ...input.approval }) } : {}),
    ...(flow ? { flow } : {}),
  });
}

/** The refusal, in a worker bundled without flow control, of a flow part it could not enforce (names the prop). */
function refuseFlowControl(_input: unknown, what: string): never {
  throw new ConfigurationError(`${what}: this worker was bundled without flow control (flowControl: true)`);
}

/**
 * A job type's rate limits and concurrency limits, parsed; in a worker bundled without flow control (the construct
 * without `flowControl`: FLOW_CONTROL_CONSTANT folds this at build time, and esbuild leaves their schemas out)
 * refused, so no job type runs past a budget it cannot take from or a limit it cannot hold.
 */
const rateLimitsOf: typeof parseRateLimits =
  process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' ? refuseFlowControl : parseRateLimits;
// The same test, spelled out: esbuild folds the define only where it is written, not through a variable.
const concurrencyLimitsOf: typeof parseConcurrencyLimits =
  process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' ? refuseFlowControl : parseConcurrencyLimits;

/** The flow block, each part parsed by its own schema (InvalidInputError naming the field). */
function parseFlow<Payload>(type: string, input: JobFlowInput<Payload>): JobFlow<Payload> {
  if (typeof input !== 'object' || input === null)
    throw new JobDefinitionError(`job definition ${type}: flow must be an object`);
  const what = `job definition ${type}: flow`;
  return Object.freeze({
    ...(input.rateLimit !== undefined ? { rateLimit: rateLimitsOf(input.rateLimit, `${what}.rateLimit`) } : {}),
    ...(input.priority !== undefined ? { priority: parsePriority(input.priority, `${what}.priority`) } : {}),
    ...(input.concurrency !== undefined
      ? { concurrency: concurrencyLimitsOf<Payload>(input.concurrency, `${what}.concurrency`) }
      : {}),
  });
}

/**
 * Delay before retry number `attempt` (1-based), with full jitter: uniform in [0, ceiling), where the ceiling
 * is exponential from baseDelayMs, capped at maxDelayMs. Jobs that failed together (a provider outage) come
 * back spread out instead of in one burst. `random` returns [0, 1) (injectable for tests).
 */
function retryDelayMs(
  definition: Pick<JobDefinition, 'retry'>,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(definition.retry.maxDelayMs, definition.retry.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const fraction = Math.min(Math.max(random(), 0), 1);
  return Math.floor(ceiling * fraction);
}

/** Job types by name; refuses duplicates. */
class JobRegistry {
  private readonly byType = new Map<string, AnyJobDefinition>();

  constructor(definitions: readonly AnyJobDefinition[] = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: AnyJobDefinition): void {
    if (this.byType.has(definition.type)) throw new JobDefinitionError(`job type ${definition.type} is defined twice`);
    this.byType.set(definition.type, definition);
  }

  get(type: string): AnyJobDefinition | undefined {
    return this.byType.get(type);
  }

  all(): AnyJobDefinition[] {
    return [...this.byType.values()];
  }
}

export {
  type AnyJobDefinition,
  defineJob,
  type JobContext,
  type JobDefinition,
  type JobDefinitionInput,
  type JobFlow,
  type JobFlowInput,
  JobRegistry,
  missingControl,
  type ProviderDeclaration,
  type ProviderDependencies,
  type ReconcileResult,
  Reversibility,
  retryDelayMs,
  type SuccessorOptions,
  TargetClass,
};
