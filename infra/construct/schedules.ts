import { Aws, Duration, type RemovalPolicy, TimeZone, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EnvironmentVariable } from '../../lib/config.js';
import { defineSchedules, type ScheduleDeclaration, type ScheduleInput } from '../../lib/messaging/schedule.js';
import { TICK_MAX_AGE_SECONDS } from '../../lib/messaging/schedule-status.js';
import { schedulesVariable } from '../../lib/messaging/schedules-variable.js';
import { METRIC_NAMESPACE, METRIC_SERVICE_DIMENSION, MetricName } from '../../lib/metric-names.js';
import { createLeasefenceFunction, PackagedEntry } from './functions.js';
import { grantAll, type LeasefenceResources, scheduleTickStatements } from './permissions.js';
import { scheduleSilenceAlarms } from './schedule-silence.js';

/** Retries of one tick by the Scheduler, within TICK_MAX_AGE_SECONDS (each retry of a tick is a replay). */
const TICK_RETRY_ATTEMPTS = 10;

/** Reserved concurrency of the schedule tick function (counted against the account with the worker's, L9). */
const SCHEDULE_TICK_RESERVED = 5;

/** What the schedules need from the FencedJobQueue around them. */
interface JobSchedulesProps {
  /** Checked here (defineSchedules): a bad expression, zone or payload fails the synth, naming the field. */
  schedules: readonly ScheduleInput[];
  /** Turn EventBridge Scheduler's flexible time window on (jitter up to this long). Default off. */
  flexibleWindow?: Duration;
  resources: LeasefenceResources;
  /** The variables every leasefence function gets (tables, queue, shards, service). */
  environment: Record<string, string>;
  function: {
    runtime: lambda.Runtime;
    bundleAwsSdk: boolean;
    logRetention: logs.RetentionDays;
    removalPolicy: RemovalPolicy;
  };
  entry?: string;
  encryptionKey?: kms.IKey;
  serviceName: string;
  alarmTopic: sns.ITopic;
}

/** Keys of the schedules' alarms. */
type ScheduleAlarmKey = 'scheduleTicksMissed' | 'scheduleTicksRefused' | 'scheduleTickErrors' | 'scheduleDeadLetters';

/**
 * The construct's `schedules`: one EventBridge Scheduler schedule each (in its own schedule group, flexible window
 * off by default) invoking the schedule tick function with the schedule's name and `<aws.scheduler.scheduled-time>`;
 * the tick enqueues the occurrence through the library, so a retried or duplicate tick is a replay. The Scheduler's
 * role may invoke only that function (and send to the ticks' DLQ); the function writes only the schedules' tenants'
 * keys. Alarms: ticks without a job (missed), refused ticks, tick function errors, ticks dead-lettered, and per
 * schedule no tick at all for longer than its longest gap plus slack (silence).
 */
class JobSchedules extends Construct {
  /** The function the schedules invoke. */
  readonly tickFunction: NodejsFunction;
  /** Its role: one of leasefence's own senders (an occurrence's wake-up), registered as a relay. */
  readonly tickRole: iam.Role;
  /** Ticks the Scheduler could not deliver within its retries (each one a tick that did not enqueue). */
  readonly deadLetterQueue: sqs.Queue;
  /** One Scheduler schedule per declared schedule, by name. */
  readonly schedules: Record<string, scheduler.Schedule>;
  readonly alarms: Record<ScheduleAlarmKey, cloudwatch.Alarm>;
  /** Per schedule name, the alarm on no tick landing for its silence window (none for one that ends or ticks rarer than weekly). */
  readonly silenceAlarms: Record<string, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: JobSchedulesProps) {
    super(scope, id);
    const declared = defineSchedules(props.schedules);
    const tick = createLeasefenceFunction(this, 'Tick', {
      ...props.function,
      entry: props.entry ?? PackagedEntry.scheduleTick,
      description: 'leasefence schedule tick: enqueues one occurrence per tick of each schedule',
      timeout: Duration.seconds(30),
      memorySize: 256,
      reservedConcurrentExecutions: SCHEDULE_TICK_RESERVED,
      environment: { ...props.environment, [EnvironmentVariable.schedules]: schedulesVariable(declared) },
    });
    grantAll(
      tick.role,
      scheduleTickStatements(
        props.resources,
        declared.map((schedule) => schedule.tenantId),
      ),
    );
    this.tickFunction = tick.fn;
    this.tickRole = tick.role;
    this.deadLetterQueue = new sqs.Queue(this, 'TickDeadLetterQueue', {
      ...(props.encryptionKey
        ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.encryptionKey }
        : { encryption: sqs.QueueEncryption.KMS_MANAGED }),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: props.function.removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the dead-letter queue of the Scheduler target (DeadLetterConfig), which cdk-nag does not recognise as one.',
    });
    const group = new scheduler.ScheduleGroup(this, 'Group', { removalPolicy: props.function.removalPolicy });
    const role = schedulerRole(this, group, tick.fn, this.deadLetterQueue);
    this.schedules = Object.fromEntries(
      declared.map((schedule) => [schedule.name, this.schedule(schedule, group, role, props.flexibleWindow)]),
    );
    this.alarms = scheduleAlarms(this, props, tick.fn, this.deadLetterQueue);
    this.silenceAlarms = scheduleSilenceAlarms(this, {
      schedules: declared,
      serviceName: props.serviceName,
      action: new SnsAction(props.alarmTopic),
      ...(props.flexibleWindow ? { flexibleWindow: props.flexibleWindow } : {}),
    });
  }

  private schedule(
    schedule: ScheduleDeclaration,
    group: scheduler.IScheduleGroup,
    role: iam.Role,
    flexibleWindow: Duration | undefined,
  ): scheduler.Schedule {
    return new scheduler.Schedule(this, `Schedule-${schedule.name}`, {
      description: `leasefence schedule ${schedule.name} (${schedule.jobType})`,
      scheduleGroup: group,
      schedule: scheduler.ScheduleExpression.expression(schedule.expression, TimeZone.of(schedule.timeZone)),
      timeWindow: flexibleWindow ? scheduler.TimeWindow.flexible(flexibleWindow) : scheduler.TimeWindow.off(),
      ...(schedule.start ? { start: new Date(schedule.start) } : {}),
      target: tickTarget(this.tickFunction, role, this.deadLetterQueue, schedule.name),
    });
  }
}

/**
 * The tick function as a Scheduler target: input `{ schedule, scheduledTime: <aws.scheduler.scheduled-time> }`,
 * retried for TICK_MAX_AGE_SECONDS, then dead-lettered. Not aws-scheduler-targets' LambdaInvoke: its grant covers
 * every version and alias (`function:*`); this role gets InvokeFunction on the function's own ARN only.
 */
function tickTarget(
  tick: lambda.IFunction,
  role: iam.Role,
  deadLetterQueue: sqs.IQueue,
  name: string,
): scheduler.IScheduleTarget {
  return {
    bind: () => ({
      arn: tick.functionArn,
      role,
      input: scheduler.ScheduleTargetInput.fromObject({
        schedule: name,
        scheduledTime: scheduler.ContextAttribute.scheduledTime,
      }),
      retryPolicy: { maximumEventAgeInSeconds: TICK_MAX_AGE_SECONDS, maximumRetryAttempts: TICK_RETRY_ATTEMPTS },
      deadLetterConfig: { arn: deadLetterQueue.queueArn },
    }),
  };
}

/** The role the Scheduler assumes, for schedules of this group in this account only (confused deputy). */
function schedulerRole(
  scope: Construct,
  group: scheduler.IScheduleGroup,
  tick: lambda.IFunction,
  deadLetterQueue: sqs.IQueue,
): iam.Role {
  const role = new iam.Role(scope, 'SchedulerRole', {
    description: 'leasefence schedules: invoke the tick function, dead-letter undeliverable ticks',
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID, 'aws:SourceArn': group.scheduleGroupArn } },
    }),
  });
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ sid: 'InvokeTick', actions: ['lambda:InvokeFunction'], resources: [tick.functionArn] }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DeadLetterTicks',
      actions: ['sqs:SendMessage'],
      resources: [deadLetterQueue.queueArn],
    }),
  );
  return role;
}

/** The schedules' alarms, each notifying the alarm topic on ALARM and OK; any one occurrence pages. */
function scheduleAlarms(
  scope: Construct,
  props: JobSchedulesProps,
  tick: lambda.IFunction,
  deadLetterQueue: sqs.IQueue,
): Record<ScheduleAlarmKey, cloudwatch.Alarm> {
  const period = Duration.minutes(5);
  const custom = (metricName: string) =>
    new cloudwatch.Metric({
      namespace: METRIC_NAMESPACE,
      metricName,
      dimensionsMap: { [METRIC_SERVICE_DIMENSION]: props.serviceName },
      statistic: 'Maximum',
      period,
    });
  const specs: Record<ScheduleAlarmKey, { metric: cloudwatch.IMetric; description: string }> = {
    scheduleTicksMissed: {
      metric: custom(MetricName.ScheduleTicksMissed),
      description: 'a schedule tick has no job (the Scheduler did not deliver it); see leasefence schedules.',
    },
    scheduleTicksRefused: {
      metric: custom(MetricName.ScheduleTicksRefused).with({ statistic: 'Sum' }),
      description: 'the tick function refused a tick (unknown schedule, bad input, a time ahead of its clock).',
    },
    scheduleTickErrors: {
      metric: tick.metricErrors({ statistic: 'Sum', period }),
      description: 'the schedule tick function failed; the Scheduler retries the tick for 15 minutes.',
    },
    scheduleDeadLetters: {
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period }),
      description: 'a schedule tick was dead-lettered after its retries: that occurrence has no job.',
    },
  };
  const action = new SnsAction(props.alarmTopic);
  const entries = Object.entries(specs).map(([key, spec]) => {
    const alarm = new cloudwatch.Alarm(scope, `Alarm-${key}`, {
      metric: spec.metric,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `leasefence ${props.serviceName}: ${spec.description}`,
    });
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    return [key, alarm] as const;
  });
  return Object.fromEntries(entries) as Record<ScheduleAlarmKey, cloudwatch.Alarm>;
}

export { JobSchedules, type JobSchedulesProps, SCHEDULE_TICK_RESERVED, type ScheduleAlarmKey };
