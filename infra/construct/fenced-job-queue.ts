import { Duration, Stack, Tags } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { parseAlertRoutes } from '../../lib/alert-route.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { METRIC_NAMESPACE } from '../../lib/metric-names.js';
import { createAlarmTopic } from './alarm-topic.js';
import { DEFAULT_ALARM_THRESHOLDS, type JobAlarmKey, JobAlarms } from './alarms.js';
import { annotateCapacity } from './capacity-check.js';
import { eventSourceCeiling } from './capacity-model.js';
import { createConcurrencyAlarm } from './concurrency-alarm.js';
import { JobDashboard } from './dashboard.js';
import { eventSourceScaling } from './event-source.js';
import { enableFaultInjection, faultLayerDefine, faultOptions } from './fault-injection.js';
import { createLeasefenceFunction, flowControlDefine, PackagedEntry } from './functions.js';
import { createIdentifierKeySecret } from './identifier-key.js';
import { createInFlightAlarm } from './in-flight-alarm.js';
import { JobTypeAlarms } from './job-type-alarms.js';
import {
  adminInvokeGuardStatement,
  adminStatements,
  grantAll,
  keyStatements,
  type LeasefenceResources,
  producerStatements,
  sweeperStatements,
  workerRecordStatement,
  workerStatements,
} from './permissions.js';
import { addBulkLane, bulkConcurrencyOf, bulkSendStatement } from './priority-lanes.js';
import {
  type AdminRoutePrincipals,
  type DeploymentEnvironment,
  type FencedJobQueueProps,
  resolveProps,
} from './props.js';
import { createQueues } from './queues.js';
import { JobSchedules, SCHEDULE_TICK_RESERVED } from './schedules.js';
import { SenderRegistry, type SenderTenantList } from './sender-registry.js';
import { bindSessionToTag } from './session-binding.js';
import { shadowWriteStatements } from './shadow-access.js';
import { createTables } from './tables.js';
import { grantTenantScopedAccess, type TenantAccessOptions, type TenantScope } from './tenant-access.js';

/**
 * Fenced background jobs in your stack: jobs + payloads tables, jobs queue + DLQ, worker (SQS, partial
 * batch responses), sweeper (schedule), admin (Function URL, AWS_IAM), dashboard, and alarms that always
 * notify a topic. Each function gets only the actions it uses and a reserved concurrency (sweeper 1); tables
 * and queues are KMS-encrypted; tables are retained and deletion-protected by default.
 * @example
 * const jobs = new FencedJobQueue(this, 'Jobs', { workerEntry: 'src/jobs/worker.ts', alarmEmail: 'ops@example.com' });
 * jobs.grantSendJobs(apiFunction);
 * jobs.grantWorkerRecordAccess(accountsTable);
 */
class FencedJobQueue extends Construct {
  /** Work items, quarantine and audit records. */
  readonly jobsTable: dynamodb.Table;
  /** Inline payload bodies (TTL, erasable). */
  readonly payloadsTable: dynamodb.Table;
  /** Wake-up messages for the worker. */
  readonly queue: sqs.Queue;
  /** Messages received maxReceiveCount times. */
  readonly deadLetterQueue: sqs.Queue;
  /** The bulk lane's queue (props.priorities), consumed beside the jobs queue with its own cap; else undefined. */
  readonly bulkQueue: sqs.Queue | undefined;
  /** Runs jobs from the queue. */
  readonly worker: NodejsFunction;
  /** Re-signals expired leases and due retries, parks exhausted ones as unknown. */
  readonly sweeper: NodejsFunction;
  /** Operator API behind an AWS_IAM Function URL. */
  readonly admin: NodejsFunction;
  /** The admin Function URL (callers need lambda:InvokeFunctionUrl, see grantAdminInvoke). */
  readonly adminUrl: lambda.FunctionUrl;
  /** Every alarm by key; each notifies alarmTopic. */
  readonly alarms: Record<JobAlarmKey, cloudwatch.Alarm>;
  /** Jobs-queue messages in flight near SQS's quota (`ApproximateNumberOfMessagesNotVisible`); notifies alarmTopic. */
  readonly inFlightAlarm: cloudwatch.Alarm;
  /** The worker at 90 % of what its event source may invoke at once (maxConcurrency or pollers × 10); notifies alarmTopic. */
  readonly concurrencyAlarm: cloudwatch.Alarm;
  /** The topic the alarms notify (created unless one was passed). */
  readonly alarmTopic: sns.ITopic;
  /** What this deployment is (props.environment, default production), also its `leasefence:environment` tag. */
  readonly environment: DeploymentEnvironment;
  /** Each routed job type's alarms (alertRoutes), by job type then key. */
  readonly jobTypeAlarms: JobTypeAlarms['alarms'];
  /** The customer-managed key of tables, queues and topic, when one was passed. */
  readonly encryptionKey: kms.IKey | undefined;
  /** The generated key of the identifier hashes in logs and metrics (read by the worker and admin). */
  readonly identifierKeySecret: secretsmanager.Secret;
  /** The stack check's fault-plan secret (the faultInjection prop); undefined when fault injection is off. */
  readonly faultPlanSecret: secretsmanager.Secret | undefined;
  /** The operations dashboard. */
  readonly dashboard: cloudwatch.Dashboard;
  /**
   * Write shards of the deadline index this deployment uses (every function gets it). Operator tools must read
   * it from the deployment, never assume it: output it (the project stack's `DeadlineShards`) for the CLI.
   */
  readonly deadlineShards: number;
  /** The recurring jobs (props.schedules): the Scheduler schedules, the tick function, its DLQ and alarms. */
  readonly schedules: JobSchedules | undefined;
  /** Who may produce for which tenants (the worker's LEASEFENCE_SENDER_TENANTS), filled by grantSendJobs. */
  private readonly senders = new SenderRegistry(this);
  private readonly routedAlarms: JobTypeAlarms;

  constructor(scope: Construct, id: string, props: FencedJobQueueProps) {
    super(scope, id);
    const config = resolveProps(props);
    const alertRoutes = parseAlertRoutes(props.alertRoutes ?? {});
    this.environment = config.environment;
    Tags.of(this).add('leasefence:environment', config.environment);
    this.deadlineShards = config.deadlineShards;
    this.encryptionKey = config.encryptionKey;
    const encryption = config.encryptionKey ? { encryptionKey: config.encryptionKey } : {};
    const { jobs, payloads } = createTables(
      this,
      { removalPolicy: config.removalPolicy, deletionProtection: config.deletionProtection, ...encryption },
      config.warmThroughput,
    );
    this.jobsTable = jobs;
    this.payloadsTable = payloads;
    const queueOptions = {
      workerTimeout: config.workerTimeout,
      maxBatchingWindow: config.maxBatchingWindow,
      maxReceiveCount: config.maxReceiveCount,
      removalPolicy: config.removalPolicy,
      ...encryption,
      ...(config.queueVisibilityTimeout ? { visibilityTimeout: config.queueVisibilityTimeout } : {}),
    };
    const { queue, deadLetterQueue } = createQueues(this, queueOptions);
    this.queue = queue;
    this.deadLetterQueue = deadLetterQueue;
    this.identifierKeySecret = createIdentifierKeySecret(this, { removalPolicy: config.removalPolicy, ...encryption });
    const resources = this.resources();
    const environment = {
      [EnvironmentVariable.jobsTable]: jobs.tableName,
      [EnvironmentVariable.payloadsTable]: payloads.tableName,
      [EnvironmentVariable.queueUrl]: queue.queueUrl,
      [EnvironmentVariable.deadLetterQueueUrl]: deadLetterQueue.queueUrl,
      [EnvironmentVariable.deadlineShards]: String(config.deadlineShards),
      [EnvironmentVariable.payloadRetentionDays]: String(config.payloadRetention.toDays()),
      [EnvironmentVariable.inlinePayloads]: config.inlinePayloads,
      POWERTOOLS_SERVICE_NAME: config.serviceName,
      POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
    };
    // The sweeper logs no identifiers, so only the worker and admin get (and may read) the key secret.
    const withKey = {
      ...environment,
      [EnvironmentVariable.identifierKeySecretArn]: this.identifierKeySecret.secretArn,
    };
    const clashes = Object.keys(config.workerEnvironment).filter(
      (name) => Object.hasOwn(withKey, name) || name === EnvironmentVariable.senderTenants,
    );
    if (clashes.length > 0) throw new Error(`workerEnvironment may not override ${clashes.join(', ')}`);
    const common = {
      // The sweeper and admin never take a budget's token: their bundles hold no flow control (the worker's may).
      define: flowControlDefine(false),
      runtime: config.runtime,
      bundleAwsSdk: config.bundleAwsSdk,
      logRetention: config.logRetention,
      removalPolicy: config.removalPolicy,
    };

    const worker = createLeasefenceFunction(this, 'Worker', {
      ...common,
      entry: config.workerEntry,
      // A worker without faultInjection bundles no fault layer (lib/lambda/fault-switch.ts): it costs no bytes.
      // Without flowControl, no concurrency-slot code either; a job type declaring limits is refused at start.
      define: { ...faultLayerDefine(props.faultInjection === true), ...flowControlDefine(props.flowControl === true) },
      ...(config.depsLockFilePath ? { depsLockFilePath: config.depsLockFilePath } : {}),
      ...(config.projectRoot ? { projectRoot: config.projectRoot } : {}),
      description: 'leasefence worker: claims and runs jobs from the jobs queue',
      timeout: config.workerTimeout,
      memorySize: config.workerMemorySize,
      reservedConcurrentExecutions: config.workerReservedConcurrency,
      environment: {
        ...config.workerEnvironment,
        ...withKey,
        [EnvironmentVariable.senderTenants]: this.senders.variable(),
        ...(config.disabledJobTypes?.length
          ? { [EnvironmentVariable.disabledJobTypes]: config.disabledJobTypes.join(',') }
          : {}),
      },
    });
    grantAll(worker.role, workerStatements(resources));
    // leasefence's own senders are known senders: the worker sends retries' and successors' wake-ups.
    this.senders.relay(worker.role);
    this.faultPlanSecret = props.faultInjection
      ? enableFaultInjection(this, { ...faultOptions(config), worker })
      : undefined;
    worker.fn.addEventSourceMapping('JobsQueue', {
      eventSourceArn: queue.queueArn,
      batchSize: config.batchSize,
      maxBatchingWindow: config.maxBatchingWindow,
      ...eventSourceScaling(config.eventSource),
      reportBatchItemFailures: true,
    });
    this.bulkQueue = props.priorities
      ? addBulkLane(this, {
          ...queueOptions,
          worker: worker.fn,
          deadLetterQueue,
          batchSize: config.batchSize,
          bulkMaxConcurrency: bulkConcurrencyOf(props.priorities),
        })
      : undefined;

    const sweeper = createLeasefenceFunction(this, 'Sweeper', {
      ...common,
      entry: config.sweeperEntry ?? PackagedEntry.sweeper,
      description: 'leasefence sweeper: expired leases, due retries, lost wake-ups',
      timeout: Duration.seconds(60),
      memorySize: 256,
      // One run at a time: overlapping runs would only race each other's conditional writes.
      reservedConcurrentExecutions: 1,
      environment,
    });
    grantAll(sweeper.role, sweeperStatements(resources));
    // The next tick is the retry: neither EventBridge nor Lambda's asynchronous queue may retry a run or hold
    // an event past the interval (Lambda's defaults, 2 retries and 6 h, would replay stale ticks in a burst).
    sweeper.fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: sweeperEventAge(config.sweeperInterval) });
    this.senders.relay(sweeper.role);
    new events.Rule(this, 'SweeperSchedule', {
      description: 'Runs the leasefence sweeper',
      schedule: config.sweeperSchedule,
      targets: [new targets.LambdaFunction(sweeper.fn, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
    });

    const admin = createLeasefenceFunction(this, 'Admin', {
      ...common,
      entry: config.adminEntry ?? PackagedEntry.admin,
      description: 'leasefence admin: list, show, resolve, retry, cancel, erase, redrive',
      timeout: Duration.seconds(30),
      memorySize: 256,
      reservedConcurrentExecutions: config.adminReservedConcurrency,
      environment: {
        ...withKey,
        // The redrive tells a relay's messages (kept original sender) from a producer's (sender recorded).
        [EnvironmentVariable.senderTenants]: this.senders.variable(),
        // "The effect did not happen" waits until no invocation of the last claim can still run.
        [EnvironmentVariable.workerMaxRunMs]: String(config.workerTimeout.toMilliseconds()),
        ...(config.adminRoutePrincipals
          ? { [EnvironmentVariable.adminRoutePrincipals]: routePrincipalsVariable(this, config.adminRoutePrincipals) }
          : {}),
      },
    });
    grantAll(admin.role, adminStatements(resources));
    this.senders.relay(admin.role);
    this.adminUrl = admin.fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });

    this.worker = worker.fn;
    this.sweeper = sweeper.fn;
    this.admin = admin.fn;
    this.alarmTopic = createAlarmTopic(this, {
      ...encryption,
      ...(config.alarmTopic ? { alarmTopic: config.alarmTopic } : {}),
      ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
    });
    const alarms = new JobAlarms(this, 'Alarms', {
      serviceName: config.serviceName,
      queue,
      deadLetterQueue,
      functions: { worker: this.worker, sweeper: this.sweeper, admin: this.admin },
      sweeperInterval: config.sweeperInterval,
      alarmTopic: this.alarmTopic,
      ...(config.alarmThresholds ? { thresholds: config.alarmThresholds } : {}),
    });
    this.alarms = alarms.alarms;
    this.inFlightAlarm = createInFlightAlarm(this, {
      serviceName: config.serviceName,
      queue,
      alarmTopic: this.alarmTopic,
      ...(config.inFlightAlarmThreshold !== undefined ? { threshold: config.inFlightAlarmThreshold } : {}),
    });
    this.concurrencyAlarm = createConcurrencyAlarm(this, {
      serviceName: config.serviceName,
      worker: this.worker,
      ceiling: eventSourceCeiling(config.eventSource),
      alarmTopic: this.alarmTopic,
    });
    annotateCapacity(this, {
      target: config.capacityTarget,
      tableQuota: config.tableQuota,
      warmThroughput: config.warmThroughput,
      deadlineShards: config.deadlineShards,
      eventSource: config.eventSource,
      batchSize: config.batchSize,
      workerReservedConcurrency: config.workerReservedConcurrency,
      otherReservations: 1 + config.adminReservedConcurrency + (config.schedules?.length ? SCHEDULE_TICK_RESERVED : 0),
    });
    this.schedules = config.schedules?.length
      ? new JobSchedules(this, 'Schedules', {
          schedules: config.schedules,
          ...(config.scheduleFlexibleWindow ? { flexibleWindow: config.scheduleFlexibleWindow } : {}),
          resources,
          environment,
          function: common,
          ...encryption,
          serviceName: config.serviceName,
          alarmTopic: this.alarmTopic,
        })
      : undefined;
    // The schedule tick sends each occurrence's wake-up: registered like the other relays.
    if (this.schedules) this.senders.relay(this.schedules.tickRole);
    this.routedAlarms = new JobTypeAlarms(this, 'JobTypeAlarms', {
      serviceName: config.serviceName,
      routes: alertRoutes,
      defaultTopic: this.alarmTopic,
      thresholds: { ...DEFAULT_ALARM_THRESHOLDS, ...config.alarmThresholds },
    });
    this.jobTypeAlarms = this.routedAlarms.alarms;
    this.dashboard = new JobDashboard(this, 'Monitoring', {
      serviceName: config.serviceName,
      ...(config.dashboardName ? { dashboardName: config.dashboardName } : {}),
      queue,
      deadLetterQueue,
      functions: { worker: this.worker, sweeper: this.sweeper, admin: this.admin },
      alarms: [
        ...Object.values(alarms.alarms),
        this.inFlightAlarm,
        this.concurrencyAlarm,
        ...Object.values(this.schedules?.alarms ?? {}),
        ...Object.values(this.schedules?.silenceAlarms ?? {}),
        ...Object.values(this.jobTypeAlarms).flatMap(Object.values),
      ],
    }).dashboard;
  }

  /**
   * Lets a producer store inline payloads and send jobs (PutItem on payloads, SendMessage on the queue), and tells
   * the worker which tenants it may send for. With `tenant`, the PutItem is confined to that tenant's keys
   * (dynamodb:LeadingKeys, like grantTenantScopedAccess) and the worker runs its messages only for that tenant
   * (SQS SenderId): `{ tenantId }` for one tenant, `{ principalTag }` for a role whose sessions a broker names after
   * the tenant tag: the role's trust policy gets sessionBindingStatements (a session starts only with the tag as a
   * session tag and its value as the session name), and a principal whose trust policy is not this app's needs
   * `sessionNameBound: true` (you added them yourself). Without `tenant` the producer is trusted for every tenant.
   * `senderId` (the role's unique id, `AROA…`) is needed for a principal that is not a role of this app.
   * @example
   * jobs.grantSendJobs(apiFunction); // trusted: any tenant
   * jobs.grantSendJobs(acmeRole, { tenant: { tenantId: 'acme' } });
   */
  grantSendJobs(
    grantee: iam.IGrantable,
    options: { tenant?: TenantScope; senderId?: string; sessionNameBound?: boolean } = {},
  ): void {
    const { tenant } = options;
    // IAM scopes by the tag, the worker by the session name: the trust policy makes them one value.
    if (tenant && 'principalTag' in tenant)
      bindSessionToTag(grantee, tenant.principalTag, options.sessionNameBound === true);
    for (const entry of producerStatements(this.resources(), tenant))
      grantee.grantPrincipal.addToPrincipalPolicy(entry);
    if (this.bulkQueue) grantee.grantPrincipal.addToPrincipalPolicy(bulkSendStatement(this.bulkQueue));
    const tenants = tenant === undefined ? '*' : 'tenantId' in tenant ? [tenant.tenantId] : 'session';
    this.senders.allowPrincipal(grantee, tenants, options.senderId, principalName(grantee));
  }

  /**
   * Tells the worker that `senderId` (an IAM unique id: `AROA…` for every session of a role, `AIDA…` for a user)
   * may produce for `tenants`: for producers outside this app that hold SendMessage by other means.
   */
  allowSender(senderId: string, tenants: SenderTenantList): void {
    this.senders.allow(senderId, tenants);
  }

  /**
   * Lets a team's existing SQS consumer, wrapped in shadowHandler, record its shadow claims: UpdateItem on the jobs
   * table's tenant partitions only (shadowWriteStatements), and, for a Lambda function of this app, the table
   * variables the wrapper reads. It gets no read and no access to payloads, queues or the identifier key.
   * @example
   * jobs.grantShadowWrites(existingRefundConsumer);
   */
  grantShadowWrites(fn: lambda.IFunction): void {
    for (const entry of shadowWriteStatements(this.resources())) fn.addToRolePolicy(entry);
    if (fn instanceof lambda.Function) {
      fn.addEnvironment(EnvironmentVariable.jobsTable, this.jobsTable.tableName);
      // Read by the configuration only (it names both tables); shadow mode never touches the payloads table.
      fn.addEnvironment(EnvironmentVariable.payloadsTable, this.payloadsTable.tableName);
    }
  }

  /**
   * Subscription props that let through only the alarms of the job types routed to `label` (an SNS message-body
   * filter on their alarm names), for a subscription to alarmTopic. InvalidInputError when no job type names it.
   * @example
   * jobs.alarmTopic.addSubscription(new EmailSubscription('pay@example.com', jobs.alertRouteFilter('pagerduty:payments')));
   */
  alertRouteFilter(label: string): { filterPolicyWithMessageBody: Record<string, sns.FilterOrPolicy> } {
    return this.routedAlarms.filterOf(label);
  }

  /** Lets the worker fence writes on your record tables (Get/Put/Update/ConditionCheck; never DeleteItem). */
  grantWorkerRecordAccess(...tables: dynamodb.ITable[]): void {
    if (tables.length > 0) this.worker.addToRolePolicy(workerRecordStatement(tables));
  }

  /** Lets an operator call the admin Function URL (lambda:InvokeFunctionUrl + InvokeFunction via URL only). */
  grantAdminInvoke(grantee: iam.IGrantable): iam.Grant {
    return this.admin.grantInvokeUrl(grantee);
  }

  /**
   * The admin invoke guard: a Deny of lambda:InvokeFunction on the admin function unless through its Function URL
   * (adminInvokeGuardStatement). Put it on every principal that holds broad Lambda permissions (deploy roles,
   * `lambda:*` policies): IAM grants add up, so only a Deny stops such a principal from invoking the function
   * directly with a hand-made event naming any actor. For principals outside this app, use adminInvokeGuard() in a
   * permissions boundary or an SCP.
   */
  guardAdminInvoke(...principals: iam.IGrantable[]): void {
    for (const principal of principals) principal.grantPrincipal.addToPrincipalPolicy(this.adminInvokeGuard());
  }

  /** The admin invoke guard as a statement, for a permissions boundary, an SCP or a managed policy of your own. */
  adminInvokeGuard(): iam.PolicyStatement {
    return adminInvokeGuardStatement(this.admin);
  }

  /** Confines a principal to its own tenant's items (dynamodb:LeadingKeys), see grantTenantScopedAccess. */
  grantTenantScopedAccess(grantee: iam.IGrantable, scope: TenantScope, options?: TenantAccessOptions): iam.Grant[] {
    const grants = grantTenantScopedAccess(grantee, this.resources(), scope, options);
    for (const entry of keyStatements(this.resources(), ['dynamodb']))
      grantee.grantPrincipal.addToPrincipalPolicy(entry);
    return grants;
  }

  private resources(): LeasefenceResources {
    return {
      jobsTable: this.jobsTable,
      payloadsTable: this.payloadsTable,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      identifierKeySecret: this.identifierKeySecret,
      ...(this.encryptionKey ? { encryptionKey: this.encryptionKey } : {}),
    };
  }
}

/** The longest a sweeper event may wait in Lambda's asynchronous queue: the interval, within Lambda's 60 s..6 h. */
function sweeperEventAge(interval: Duration): Duration {
  return Duration.seconds(Math.min(Math.max(interval.toSeconds(), 60), Duration.hours(6).toSeconds()));
}

/** A principal's construct path, for an error that must say which grant lacks a SenderId. */
function principalName(grantee: iam.IGrantable): string {
  const principal = grantee.grantPrincipal as Partial<Construct>;
  return principal.node?.path ?? grantee.grantPrincipal.toString();
}

/** The allowlists as the admin reads them (LEASEFENCE_ADMIN_ROUTE_PRINCIPALS): roles and users by their ARN. */
function routePrincipalsVariable(scope: Construct, allowlists: AdminRoutePrincipals): string {
  const arnOf = (entry: string | iam.IRole | iam.IUser) =>
    typeof entry === 'string' ? entry : 'roleArn' in entry ? entry.roleArn : entry.userArn;
  const entries = Object.entries(allowlists).map(([route, principals]) => [route, (principals ?? []).map(arnOf)]);
  return Stack.of(scope).toJsonString(Object.fromEntries(entries));
}

export { FencedJobQueue };
