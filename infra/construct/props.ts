import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { RESTRICTABLE_ROUTES, type RestrictableRoute } from '../../lib/admin/route-principals.js';
import { principalEntrySchema } from '../../lib/internal/principals.js';
import type { ScheduleInput } from '../../lib/messaging/schedule.js';
import { type InlinePayloadPolicy, inlinePayloadsSchema, jobTypeSchema, RetentionDays } from '../../lib/rules.js';
import { DEFAULT_DEADLINE_SHARDS } from '../../lib/store/index.js';
import type { AlarmThresholds } from './alarms.js';
import { checkCapacityProps, type TableQuota } from './capacity-check.js';
import type { CapacityTarget, EventSourceMode } from './capacity-model.js';
import { type ProvisionedPollers, reservationRange, resolveEventSource } from './event-source.js';
import { checkInFlightThreshold } from './in-flight-alarm.js';
import { bulkConcurrencyOf, type PrioritiesProps } from './priority-lanes.js';
import { checkWarmThroughput, type WarmThroughputSettings } from './warm-throughput.js';

/** Properties of a FencedJobQueue. Only workerEntry is required; the defaults suit a small production system. */
interface FencedJobQueueProps {
  /**
   * Your worker: a .ts or .js file exporting `handler = createSqsWorkerHandler({ jobs: [...] })` with your job
   * definitions. Bundled by esbuild with your project's lock file.
   */
  readonly workerEntry: string;
  /** Lock file used to bundle the functions. Default: the nearest lock file above the working directory. */
  readonly depsLockFilePath?: string;
  /** Project root used to bundle workerEntry (must contain it). Default: the lock file's directory. */
  readonly projectRoot?: string;
  /** Replaces the packaged sweeper handler (advanced). */
  readonly sweeperEntry?: string;
  /** Replaces the packaged admin handler (advanced). */
  readonly adminEntry?: string;
  /**
   * Job types switched off in this deployment (cut over one job type at a time): their messages are
   * acknowledged and their work rows wait queued; the sweeper re-signals them, so they run once the type is
   * removed from this list and deployed again. Default: none.
   */
  readonly disabledJobTypes?: readonly string[];
  /** Extra environment for the worker (your job handlers' settings); may not override the variables the construct sets. */
  readonly workerEnvironment?: Record<string, string>;
  /** Worker timeout; must exceed the longest job's run time. Default 60 s. */
  readonly workerTimeout?: Duration;
  /** Worker memory in MiB. Default 512. */
  readonly workerMemorySize?: number;
  /** SQS records per invocation. Default 10. */
  readonly batchSize?: number;
  /** How long the event source gathers records before invoking. Default 1 s. */
  readonly maxBatchingWindow?: Duration;
  /**
   * Upper bound on concurrent worker invocations from the queue, standard mode (2..1000). Default 10. Not with
   * provisionedPollers (AWS refuses both: InvalidInputError).
   */
  readonly maxConcurrency?: number;
  /**
   * Provisioned mode for the queue's event source instead of maxConcurrency: dedicated pollers (billed), each up to
   * 10 concurrent invokes, for rates past standard mode's 1,250 (docs/SCALE.md, "Lambda sizing"). Default: standard.
   */
  readonly provisionedPollers?: ProvisionedPollers;
  /**
   * Reserved concurrency of the worker: a cap, and capacity no other function can take. At least what the event
   * source may invoke at once (maxConcurrency, or maximumPollers × 10; else it is throttled). Default that number.
   */
  readonly workerReservedConcurrency?: number;
  /** Reserved concurrency of the admin function (1..100): operators are few. Default 5. The sweeper's is always 1. */
  readonly adminReservedConcurrency?: number;
  /** Receives before a message moves to the DLQ. Default 5. */
  readonly maxReceiveCount?: number;
  /** Jobs queue visibility timeout. Default and minimum: 6 × workerTimeout + maxBatchingWindow. */
  readonly queueVisibilityTimeout?: Duration;
  /** When the sweeper runs. Default every minute. */
  readonly sweeperSchedule?: events.Schedule;
  /**
   * How often sweeperSchedule fires; the sweeperNotRunning alarm fires after two intervals without a run.
   * Default: the rate of a `rate(...)` schedule; required for a cron schedule.
   */
  readonly sweeperInterval?: Duration;
  /** Write shards of the deadline index. Default DEFAULT_DEADLINE_SHARDS (lib/store/table.ts). */
  readonly deadlineShards?: number;
  /**
   * Warm throughput of the jobs table, each of its indexes and the payloads table, so a new deployment serves
   * its launch rate from the first second instead of ramping (values per target: docs/SCALE.md). Default none.
   */
  readonly warmThroughput?: WarmThroughputSettings;
  /**
   * The peak this deployment is built for (jobs/s, retry share, …): checked against the capacity model at synth,
   * with a warning naming the quota, warm throughput, shard count or concurrency to raise (docs/SCALE.md). Default none.
   */
  readonly capacityTarget?: CapacityTarget;
  /** The account's DynamoDB table-level quotas, once raised (Service Quotas). Default AWS's 40,000 WRU and RRU. */
  readonly tableQuota?: TableQuota;
  /** How long inline payload bodies are kept (TTL), 1 to 3650 days. Default 30 days (RetentionDays). */
  readonly payloadRetention?: Duration;
  /**
   * Payload bodies carried in job messages (docs/PRODUCERS.md): `accept` (default) moves them into the payloads
   * table; `refuse` quarantines such messages (`inline_payload_refused`), so no body sits in the queue or the DLQ.
   */
  readonly inlinePayloads?: InlinePayloadPolicy;
  /** Removal policy of tables, queues and log groups. Default RETAIN. */
  readonly removalPolicy?: RemovalPolicy;
  /** DynamoDB deletion protection. Default true. */
  readonly deletionProtection?: boolean;
  /** Log retention of the three functions. Default one month. */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Bundle the AWS SDK at the lock file's version (true), or use the SDK v3 that the nodejs22.x runtime ships
   * (false: the worker bundle stays under 300 KB). Default false.
   */
  readonly bundleAwsSdk?: boolean;
  /** Lambda runtime. Default nodejs22.x. */
  readonly runtime?: lambda.Runtime;
  /** Value of the `service` metric dimension and POWERTOOLS_SERVICE_NAME; unique per instance in an account. Default 'leasefence'. */
  readonly serviceName?: string;
  /**
   * Customer-managed KMS key (rotation on) for both tables, both queues and the alarm topic. Default: the
   * AWS-managed keys (alias/aws/dynamodb, alias/aws/sqs) and a dedicated rotating key for the alarm topic.
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * Topic every alarm notifies on ALARM and OK. Default: a topic the construct creates (TLS-only, encrypted,
   * publishable by CloudWatch alarms of this account only). A topic you pass must allow CloudWatch itself.
   */
  readonly alarmTopic?: sns.ITopic;
  /** Subscribe this address to the alarm topic (the recipient confirms by e-mail). */
  readonly alarmEmail?: string;
  /** Alarm threshold overrides. */
  readonly alarmThresholds?: Partial<AlarmThresholds>;
  /** Jobs-queue messages in flight that page (the `inFlightAlarm`; SQS's quota is ~120,000). Default 90,000. */
  readonly inFlightAlarmThreshold?: number;
  /**
   * What this deployment is, for tools that inject test traffic: tagged `leasefence:environment` on every resource
   * (the project stack also outputs it as `Environment`). Default 'production': an unmarked stack is never taken
   * for a test one.
   */
  readonly environment?: DeploymentEnvironment;
  /**
   * Let `leasefence check --stack` inject faults into the worker for its own `lfcheck-<run>-` tenants, under a plan
   * the stack holds in a secret only the operator writes (infra/construct/fault-injection.ts). Only on a stack marked
   * test or staging: synth throws otherwise. Off (default): the worker never loads its fault layer.
   */
  readonly faultInjection?: boolean;
  /**
   * Priorities (README.md, "Flow control: rate limits and priorities"): a bulk queue beside the jobs queue (the urgent lane), consumed by the worker
   * through its own event source mapping capped at `bulkMaxConcurrency`; the worker's reserved concurrency then
   * defaults to both caps together, so bulk work never takes urgent work's capacity. Default: no bulk lane.
   */
  readonly priorities?: PrioritiesProps;
  /**
   * Bundle the worker with flow control: concurrency limits and rate limits (README, "Concurrency limits", "Rate
   * limits"). Off (default): the slot code and the rate gate are left out of the worker's bundle; a worker whose
   * jobs declare limits refuses to start (ConfigurationError) and defineJob refuses a job type declaring a rate
   * limit at the worker's cold start (JobDefinitionError naming this prop): none runs unlimited.
   */
  readonly flowControl?: boolean;
  /**
   * Job type → alert route (lib/alert-route.ts): each job type named gets its own alarms (parked unknown,
   * quarantines, stale-fence rejections, lease doubt) notifying its route. An SNS topic ARN is notified directly
   * (its policy must let CloudWatch publish); a label (`pagerduty:payments`) goes to alarmTopic, where a
   * subscription made with `alertRouteFilter(label)` receives only its job types' alarms. Build it from the job
   * definitions with `alertRoutesOf(jobs)`. A bad entry throws InvalidInputError at synth. Default: none.
   */
  readonly alertRoutes?: Readonly<Record<string, string>>;
  /** Dashboard name. Default: generated by CloudFormation. */
  readonly dashboardName?: string;
  /**
   * Per admin route, who may use it: role or user ARNs, IAM unique ids (`AROA…`), or roles and users of your app.
   * A role covers every session of it (session names are the caller's choice, so they never grant anything). A
   * route named here answers 403 to every other caller, however the URL let them in; routes not named are open to
   * whoever grantAdminInvoke admits. E.g. `{ erasePayloads: [privacyRole], raiseFences: [recoveryRole],
   * resolveItem: [opsRole] }`. Default: no allowlists.
   */
  readonly adminRoutePrincipals?: AdminRoutePrincipals;
  /**
   * Recurring jobs (defineSchedule's fields): each becomes an EventBridge Scheduler schedule whose ticks enqueue one
   * job per tick under `schedule/<name>/<tick time>` (a duplicate or late tick is a replay). Checked at synth. The
   * payloads are written into the template and the tick function's environment: nothing secret. Default: none.
   */
  readonly schedules?: readonly ScheduleInput[];
  /** EventBridge Scheduler's flexible time window for every schedule (jitter up to this long). Default off. */
  readonly scheduleFlexibleWindow?: Duration;
}

/** What a deployment is: test and staging stacks may receive injected test traffic, production never by default. */
type DeploymentEnvironment = 'test' | 'staging' | 'production';

/** Who may use each restricted admin route (see FencedJobQueueProps.adminRoutePrincipals). */
type AdminRoutePrincipals = Partial<Record<RestrictableRoute, ReadonlyArray<string | iam.IRole | iam.IUser>>>;

/** The props with every default applied and checked. */
type ResolvedProps = Required<
  Omit<
    FencedJobQueueProps,
    | 'workerEntry'
    | 'maxConcurrency'
    | 'provisionedPollers'
    | 'capacityTarget'
    | 'tableQuota'
    | 'depsLockFilePath'
    | 'projectRoot'
    | 'sweeperEntry'
    | 'adminEntry'
    | 'queueVisibilityTimeout'
    | 'encryptionKey'
    | 'alarmTopic'
    | 'alarmEmail'
    | 'alarmThresholds'
    | 'alertRoutes'
    | 'dashboardName'
    | 'disabledJobTypes'
    | 'adminRoutePrincipals'
    | 'warmThroughput'
    | 'inFlightAlarmThreshold'
    | 'schedules'
    | 'scheduleFlexibleWindow'
    | 'faultInjection'
    | 'priorities'
    | 'flowControl'
  >
> &
  FencedJobQueueProps & {
    /** The worker's event-source mode, resolved (standard with maxConcurrency, or provisioned). */
    readonly eventSource: EventSourceMode;
  };

function checkRange(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer in ${min}..${max}, got ${value}`);
  }
}

/** The interval of a `rate(...)` schedule (default: every minute); a cron schedule needs sweeperInterval. */
function scheduleRate(schedule: events.Schedule | undefined): Duration {
  if (!schedule) return Duration.minutes(1);
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(schedule.expressionString);
  if (!match) throw new Error(`sweeperInterval is required with the schedule ${schedule.expressionString}`);
  const amount = Number(match[1]);
  const unit = match[2] ?? 'minutes';
  if (unit.startsWith('minute')) return Duration.minutes(amount);
  return unit.startsWith('hour') ? Duration.hours(amount) : Duration.days(amount);
}

/** Applies the defaults and rejects values AWS or leasefence would refuse later. */
function resolveProps(props: FencedJobQueueProps): ResolvedProps {
  const eventSource = resolveEventSource(props);
  const urgentReservation = reservationRange(eventSource);
  // The bulk lane's cap on top: urgent work keeps its whole maximum concurrency while bulk work runs.
  const bulk = bulkConcurrencyOf(props.priorities);
  const reservation = { min: urgentReservation.min + bulk, max: urgentReservation.max + bulk };
  const resolved: ResolvedProps = {
    ...props,
    workerEnvironment: props.workerEnvironment ?? {},
    workerTimeout: props.workerTimeout ?? Duration.seconds(60),
    workerMemorySize: props.workerMemorySize ?? 512,
    batchSize: props.batchSize ?? 10,
    maxBatchingWindow: props.maxBatchingWindow ?? Duration.seconds(1),
    eventSource,
    workerReservedConcurrency: props.workerReservedConcurrency ?? reservation.min,
    adminReservedConcurrency: props.adminReservedConcurrency ?? 5,
    maxReceiveCount: props.maxReceiveCount ?? 5,
    sweeperSchedule: props.sweeperSchedule ?? events.Schedule.rate(Duration.minutes(1)),
    sweeperInterval: props.sweeperInterval ?? scheduleRate(props.sweeperSchedule),
    deadlineShards: props.deadlineShards ?? DEFAULT_DEADLINE_SHARDS,
    payloadRetention: props.payloadRetention ?? Duration.days(RetentionDays.default),
    inlinePayloads: props.inlinePayloads ?? 'accept',
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    deletionProtection: props.deletionProtection ?? true,
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    bundleAwsSdk: props.bundleAwsSdk ?? false,
    runtime: props.runtime ?? lambda.Runtime.NODEJS_22_X,
    serviceName: props.serviceName ?? 'leasefence',
    environment: props.environment ?? 'production',
  };
  if (typeof props?.workerEntry !== 'string' || props.workerEntry.trim() === '') {
    throw new Error(
      'workerEntry is required: the path of your file exporting `handler = createSqsWorkerHandler({ jobs: [...] })`',
    );
  }
  checkRange('deadlineShards', resolved.deadlineShards, 1, 1000);
  if (!inlinePayloadsSchema.safeParse(resolved.inlinePayloads).success) {
    throw new Error(`inlinePayloads must be 'accept' or 'refuse', got ${String(resolved.inlinePayloads)}`);
  }
  checkRange('payloadRetention (days)', resolved.payloadRetention.toDays(), RetentionDays.min, RetentionDays.max);
  if (resolved.workerReservedConcurrency < reservation.min) {
    throw new Error(
      `workerReservedConcurrency ${resolved.workerReservedConcurrency} is below ${eventSource.mode === 'standard' ? 'maxConcurrency' : 'maximumPollers × 10 ='}${bulk > 0 ? ' + priorities.bulkMaxConcurrency' : ''} ${reservation.min}: the event source would be throttled`,
    );
  }
  checkRange('workerReservedConcurrency', resolved.workerReservedConcurrency, 2, reservation.max);
  checkRange('adminReservedConcurrency', resolved.adminReservedConcurrency, 1, 100);
  checkRange('sweeperInterval (s)', resolved.sweeperInterval.toSeconds(), 60, 86_400);
  checkRange('batchSize', resolved.batchSize, 1, resolved.maxBatchingWindow.toSeconds() > 0 ? 10_000 : 10);
  checkRange('workerTimeout (s)', resolved.workerTimeout.toSeconds(), 1, 900);
  for (const type of resolved.disabledJobTypes ?? []) {
    if (!jobTypeSchema.safeParse(type).success) throw new Error(`invalid job type in disabledJobTypes: ${type}`);
  }
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(resolved.serviceName))
    throw new Error(`invalid serviceName ${resolved.serviceName}`);
  checkRoutePrincipals(props.adminRoutePrincipals);
  checkWarmThroughput(props.warmThroughput);
  checkCapacityProps(props);
  checkInFlightThreshold(props.inFlightAlarmThreshold);
  if (!['test', 'staging', 'production'].includes(resolved.environment)) {
    throw new Error(`environment must be test, staging or production, got ${String(resolved.environment)}`);
  }
  return resolved;
}

/** Known routes, at least one principal each, every literal entry an ARN or unique id (tokens are checked by IAM). */
function checkRoutePrincipals(allowlists: AdminRoutePrincipals | undefined): void {
  for (const [route, principals] of Object.entries(allowlists ?? {})) {
    if (!(RESTRICTABLE_ROUTES as readonly string[]).includes(route)) {
      throw new Error(`adminRoutePrincipals: ${route} is not one of ${RESTRICTABLE_ROUTES.join(', ')}`);
    }
    if (!principals || principals.length === 0) throw new Error(`adminRoutePrincipals.${route} is empty`);
    for (const entry of principals) {
      if (typeof entry === 'string' && !Token.isUnresolved(entry) && !principalEntrySchema.safeParse(entry).success) {
        throw new Error(`adminRoutePrincipals.${route}: ${entry} is not an IAM unique id or a user or role ARN`);
      }
    }
  }
}

export {
  type AdminRoutePrincipals,
  type DeploymentEnvironment,
  type FencedJobQueueProps,
  type ResolvedProps,
  resolveProps,
};
