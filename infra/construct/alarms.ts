import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, METRIC_SERVICE_DIMENSION, MetricName } from '../../lib/metric-names.js';

/** Thresholds of the alarms; each alarm fires when its value over one 5-minute period reaches the threshold. */
interface AlarmThresholds {
  /** Sum of heartbeats skipped because the handler reported no progress (claimed but not progressing). */
  heartbeatSkippedNoProgress: number;
  /** Sum of lease renewals that failed (the lease may lapse and the job be taken over). */
  leaseRenewalFailed: number;
  /** Sum of effects an attempt in lease doubt tried to start and was refused (its lease lapsed under it). */
  effectRefusedInLeaseDoubt: number;
  /** Maximum age of the oldest `unknown` item, in seconds (needs reconciliation by a human). */
  oldestUnknownAgeSeconds: number;
  /** Maximum age of the oldest job awaiting approval, in seconds (a person has not decided yet). */
  oldestAwaitingApprovalAgeSeconds: number;
  /**
   * Maximum seconds a job has waited for a concurrency slot (README, "Concurrency limits"): a limit too small for the
   * load, or slots held by hung holders until their leases expire.
   */
  concurrencyWaitSeconds: number;
  /**
   * Sum of jobs sent back to wait queued because a provider budget stayed empty past the in-process wait (1 s before
   * the claim, up to 10 s in `ctx.rateLimit`; README, "Flow control"): each is a job waiting on a budget longer than
   * that. Reaching the threshold in one period means a budget too small for the load (`leasefence limits <type>
   * --provider <name>`), even while each wait is short (rateLimitWaitSeconds watches how long).
   */
  rateLimitDeferrals: number;
  /**
   * Maximum seconds a job has waited on a provider budget since it first went back to queued for it (emitted at each
   * re-wait and when it gets its token; README, "Flow control"): a budget too small for the load, or a wake-up lost
   * (the sweeper's backstop is slower).
   */
  rateLimitWaitSeconds: number;
  /** Sum of quarantined messages/items. */
  quarantined: number;
  /** Sum of lease takeovers. */
  takeovers: number;
  /** Sum of fenced writes rejected because a newer claim wrote first. */
  staleFenceRejected: number;
  /** Sum of jobs parked `restore_mismatch`: a record above every fence the jobs table issued (a restore mismatch). */
  restoreMismatch: number;
  /** Maximum number of visible messages on the DLQ. */
  deadLetterQueueDepth: number;
  /** Age of the oldest DLQ message, in seconds: it is deleted at 14 days, so this pages again before that. */
  deadLetterOldestMessageAgeSeconds: number;
  /** Age of the oldest jobs-queue message, in seconds (the worker is not keeping up, or is not running). */
  oldestMessageAgeSeconds: number;
  /** Sum of errors of one function (each function has its own alarm). */
  functionErrors: number;
  /** Sum of throttles of one function (each function has its own alarm). */
  functionThrottles: number;
}

/** Defaults: anything unusual pages, except takeovers, which a crash or timeout causes occasionally. */
const DEFAULT_ALARM_THRESHOLDS: AlarmThresholds = {
  heartbeatSkippedNoProgress: 3,
  leaseRenewalFailed: 3,
  effectRefusedInLeaseDoubt: 1,
  oldestUnknownAgeSeconds: 3600,
  oldestAwaitingApprovalAgeSeconds: 86_400,
  concurrencyWaitSeconds: 900,
  rateLimitDeferrals: 100,
  rateLimitWaitSeconds: 900,
  quarantined: 1,
  takeovers: 5,
  staleFenceRejected: 1,
  restoreMismatch: 1,
  deadLetterQueueDepth: 1,
  deadLetterOldestMessageAgeSeconds: 10 * 86_400,
  oldestMessageAgeSeconds: 3600,
  functionErrors: 1,
  functionThrottles: 1,
};

/** The functions every instance has; each gets an errors and a throttles alarm. */
type FunctionName = 'worker' | 'sweeper' | 'admin';

/** Key of one alarm: a threshold key (except the per-function ones), a per-function key, or sweeperNotRunning. */
type JobAlarmKey =
  | Exclude<keyof AlarmThresholds, 'functionErrors' | 'functionThrottles'>
  | `${FunctionName}Errors`
  | `${FunctionName}Throttles`
  | 'sweeperNotRunning';

const PERIOD = Duration.minutes(5);

/** A leasefence metric (EMF through the function logs), filtered to one service. */
function leasefenceMetric(
  serviceName: string,
  metricName: MetricName,
  statistic: 'Sum' | 'Maximum',
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRIC_NAMESPACE,
    metricName,
    dimensionsMap: { [METRIC_SERVICE_DIMENSION]: serviceName },
    statistic,
    period: PERIOD,
  });
}

/** What the alarms watch, and whom they notify. */
interface JobAlarmsProps {
  serviceName: string;
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  functions: Record<FunctionName, lambda.IFunction>;
  /** How often the sweeper is scheduled; no invocation in two of these raises sweeperNotRunning. */
  sweeperInterval: Duration;
  alarmTopic: sns.ITopic;
  thresholds?: Partial<AlarmThresholds>;
}

/** One alarm's metric, threshold and text; `notRunning` alarms fire below 1 and on missing data. */
interface AlarmSpec {
  metric: cloudwatch.IMetric;
  threshold: number;
  description: string;
  notRunning?: { evaluationPeriods: number };
}

/** Every leasefence alarm, each notifying the alarm topic on ALARM and on OK. */
class JobAlarms extends Construct {
  /** Alarms by key. */
  readonly alarms: Record<JobAlarmKey, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: JobAlarmsProps) {
    super(scope, id);
    const specs = alarmSpecs(props, { ...DEFAULT_ALARM_THRESHOLDS, ...props.thresholds });
    const action = new SnsAction(props.alarmTopic);
    const entries = Object.entries(specs).map(([key, spec]) => {
      const alarm = new cloudwatch.Alarm(this, key, {
        metric: spec.metric,
        threshold: spec.threshold,
        evaluationPeriods: spec.notRunning?.evaluationPeriods ?? 1,
        datapointsToAlarm: spec.notRunning?.evaluationPeriods ?? 1,
        comparisonOperator: spec.notRunning
          ? cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD
          : cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // A silent counter means nothing happened; a silent heartbeat means nothing ran.
        treatMissingData: spec.notRunning
          ? cloudwatch.TreatMissingData.BREACHING
          : cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `leasefence ${props.serviceName}: ${spec.description}`,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return [key, alarm] as const;
    });
    this.alarms = Object.fromEntries(entries) as Record<JobAlarmKey, cloudwatch.Alarm>;
  }
}

/** What each alarm watches and when it fires. */
function alarmSpecs(props: JobAlarmsProps, thresholds: AlarmThresholds): Record<JobAlarmKey, AlarmSpec> {
  const custom = (name: MetricName, statistic: 'Sum' | 'Maximum') =>
    leasefenceMetric(props.serviceName, name, statistic);
  const maximum = { statistic: 'Maximum', period: PERIOD } as const;
  const sum = { statistic: 'Sum', period: PERIOD } as const;
  const { worker, sweeper, admin } = props.functions;
  const errors = (fn: lambda.IFunction, name: string): AlarmSpec => ({
    metric: fn.metricErrors(sum),
    threshold: thresholds.functionErrors,
    description: `the ${name} function failed (see its log group); a failing sweeper or worker stops progress.`,
  });
  const throttles = (fn: lambda.IFunction, name: string): AlarmSpec => ({
    metric: fn.metricThrottles(sum),
    threshold: thresholds.functionThrottles,
    description: `the ${name} function was throttled at its reserved concurrency.`,
  });
  return {
    heartbeatSkippedNoProgress: {
      metric: custom(MetricName.HeartbeatSkippedNoProgress, 'Sum'),
      threshold: thresholds.heartbeatSkippedNoProgress,
      description: 'claimed jobs are not reporting progress; their leases will lapse and be taken over.',
    },
    leaseRenewalFailed: {
      metric: custom(MetricName.LeaseRenewalFailed, 'Sum'),
      threshold: thresholds.leaseRenewalFailed,
      description: 'lease renewals are failing (throttling, errors); leases may lapse and jobs be taken over.',
    },
    effectRefusedInLeaseDoubt: {
      metric: custom(MetricName.EffectRefusedInLeaseDoubt, 'Sum'),
      threshold: thresholds.effectRefusedInLeaseDoubt,
      description:
        'a job tried to start an effect after its lease was in doubt and was refused; leases are too short or renewals fail.',
    },
    oldestUnknownAgeSeconds: {
      metric: custom(MetricName.OldestUnknownAgeSeconds, 'Maximum'),
      threshold: thresholds.oldestUnknownAgeSeconds,
      description: 'an item has been parked as unknown for too long; reconcile it and resolve it with the admin API.',
    },
    oldestAwaitingApprovalAgeSeconds: {
      metric: custom(MetricName.OldestAwaitingApprovalAgeSeconds, 'Maximum'),
      threshold: thresholds.oldestAwaitingApprovalAgeSeconds,
      description:
        'a job has been awaiting approval for too long; approve or reject it (leasefence ls --state awaiting_approval) before it expires.',
    },
    concurrencyWaitSeconds: {
      metric: custom(MetricName.ConcurrencyWaitSeconds, 'Maximum'),
      threshold: thresholds.concurrencyWaitSeconds,
      description:
        'a job has waited too long for a concurrency slot; raise the limit or find its holders (leasefence limits <type>).',
    },
    rateLimitDeferrals: {
      metric: custom(MetricName.RateLimitDeferred, 'Sum'),
      threshold: thresholds.rateLimitDeferrals,
      description:
        'jobs keep waiting on an empty provider budget past the in-process wait; raise the budget or slow the producers (leasefence limits <type> --provider <name>).',
    },
    rateLimitWaitSeconds: {
      metric: custom(MetricName.RateLimitWaitSeconds, 'Maximum'),
      threshold: thresholds.rateLimitWaitSeconds,
      description:
        'a job has waited too long on an empty provider budget; raise the budget or slow the producers (leasefence limits <type> --provider <name>).',
    },
    quarantined: {
      metric: custom(MetricName.Quarantined, 'Sum'),
      threshold: thresholds.quarantined,
      description: 'messages or items were quarantined (bad input, payload conflict, unknown job type).',
    },
    takeovers: {
      metric: custom(MetricName.Takeovers, 'Sum'),
      threshold: thresholds.takeovers,
      description: 'leases are expiring and being taken over; workers crash, time out or stall.',
    },
    staleFenceRejected: {
      metric: custom(MetricName.StaleFenceRejected, 'Sum'),
      threshold: thresholds.staleFenceRejected,
      description: 'a superseded worker tried to write a fenced record; the fence held, but leases are too short.',
    },
    restoreMismatch: {
      metric: custom(MetricName.RestoreMismatch, 'Sum'),
      threshold: thresholds.restoreMismatch,
      description:
        'a record holds a writer_epoch above every fence the jobs table issued: the jobs table was restored to an earlier point than the record tables. Stop the workers and run raise-fences (infra/README.md, Restoring from a backup).',
    },
    deadLetterQueueDepth: {
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible(maximum),
      threshold: thresholds.deadLetterQueueDepth,
      description: 'messages reached the dead-letter queue; inspect them and redrive with the admin API.',
    },
    deadLetterOldestMessageAgeSeconds: {
      metric: props.deadLetterQueue.metricApproximateAgeOfOldestMessage(maximum),
      threshold: thresholds.deadLetterOldestMessageAgeSeconds,
      description: 'a dead-lettered message is close to its 14-day expiry; redrive or inspect it before it is lost.',
    },
    oldestMessageAgeSeconds: {
      metric: props.queue.metricApproximateAgeOfOldestMessage(maximum),
      threshold: thresholds.oldestMessageAgeSeconds,
      description: 'the oldest jobs-queue message is old: the worker is failing, throttled or not keeping up.',
    },
    workerErrors: errors(worker, 'worker'),
    sweeperErrors: errors(sweeper, 'sweeper'),
    adminErrors: errors(admin, 'admin'),
    workerThrottles: throttles(worker, 'worker'),
    sweeperThrottles: throttles(sweeper, 'sweeper'),
    adminThrottles: throttles(admin, 'admin'),
    sweeperNotRunning: {
      metric: sweeper.metricInvocations({ statistic: 'Sum', period: props.sweeperInterval }),
      threshold: 1,
      description:
        'the sweeper was not invoked for two schedule intervals: expired leases and lost wake-ups are not recovered.',
      notRunning: { evaluationPeriods: 2 },
    },
  };
}

/** The period every leasefence alarm evaluates (the per-job-type alarms too). */
export {
  type AlarmThresholds,
  DEFAULT_ALARM_THRESHOLDS,
  type FunctionName,
  type JobAlarmKey,
  JobAlarms,
  type JobAlarmsProps,
  leasefenceMetric,
  PERIOD as ALARM_PERIOD,
};
