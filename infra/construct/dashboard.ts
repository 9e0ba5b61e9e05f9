import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  METRIC_NAMESPACE,
  METRIC_SCHEDULE_DIMENSION,
  METRIC_SERVICE_DIMENSION,
  MetricName,
} from '../../lib/metric-names.js';
import { leasefenceMetric } from './alarms.js';

/** What the dashboard shows. */
interface JobDashboardProps {
  serviceName: string;
  dashboardName?: string;
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  functions: { worker: lambda.IFunction; sweeper: lambda.IFunction; admin: lambda.IFunction };
  alarms: cloudwatch.IAlarm[];
}

const WIDTH = 8;
const HEIGHT = 6;

/** One dashboard: every alarm's state, outcomes, safety signals, sweeper runs, queue depths and ages, functions. */
class JobDashboard extends Construct {
  /** The CloudWatch dashboard. */
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: JobDashboardProps) {
    super(scope, id);
    const sum = (name: MetricName) => leasefenceMetric(props.serviceName, name, 'Sum');
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
      new cloudwatch.GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT });
    const perFunction = (metric: (fn: lambda.IFunction) => cloudwatch.Metric) =>
      Object.values(props.functions).map((fn) => metric(fn));
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      ...(props.dashboardName ? { dashboardName: props.dashboardName } : {}),
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'leasefence alarms', alarms: props.alarms, width: 24, height: 3 }),
    );
    this.dashboard.addWidgets(
      graph(
        'Outcomes',
        [MetricName.Claims, MetricName.Succeeded, MetricName.FailedTerminal, MetricName.RetryScheduled].map(sum),
        // Jobs waiting on a provider budget (flow control) sit beside the deferred ones: waiting, not failing.
        [
          MetricName.Unknown,
          MetricName.Quarantined,
          MetricName.Deferred,
          MetricName.RateLimitWaited,
          MetricName.RateLimitDeferred,
        ].map(sum),
      ),
      graph(
        'Leases and fences',
        [MetricName.Takeovers, MetricName.OwnershipLost, MetricName.StaleFenceRejected].map(sum),
        [
          MetricName.HeartbeatSkippedNoProgress,
          MetricName.LeaseRenewalFailed,
          MetricName.EffectRefusedInLeaseDoubt,
          MetricName.FenceRefusedByJob,
          MetricName.RestoreMismatch,
        ].map(sum),
      ),
      graph(
        'Sweeper',
        [
          ...[MetricName.SweptToUnknown, MetricName.Resignalled, MetricName.ApprovalsExpired].map(sum),
          props.functions.sweeper.metricInvocations({ label: 'sweeper runs', statistic: 'Sum' }),
        ],
        [
          leasefenceMetric(props.serviceName, MetricName.OldestUnknownAgeSeconds, 'Maximum'),
          leasefenceMetric(props.serviceName, MetricName.OldestAwaitingApprovalAgeSeconds, 'Maximum'),
        ],
      ),
      graph(
        'Flow control',
        [MetricName.ConcurrencyWaits, MetricName.ConcurrencySlotRegranted].map(sum),
        // How long jobs have waited for a slot and on a budget (the ConcurrencyWait and RateLimitWait alarms').
        [
          leasefenceMetric(props.serviceName, MetricName.ConcurrencyWaitSeconds, 'Maximum'),
          leasefenceMetric(props.serviceName, MetricName.RateLimitWaitSeconds, 'Maximum'),
        ],
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Queues',
        [
          props.queue.metricApproximateNumberOfMessagesVisible({ label: 'jobs visible', statistic: 'Maximum' }),
          props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            label: 'DLQ visible',
            statistic: 'Maximum',
          }),
        ],
        [
          props.queue.metricApproximateAgeOfOldestMessage({ label: 'oldest job message (s)', statistic: 'Maximum' }),
          props.deadLetterQueue.metricApproximateAgeOfOldestMessage({
            label: 'oldest DLQ message (s)',
            statistic: 'Maximum',
          }),
        ],
      ),
      graph(
        'Function errors and throttles',
        perFunction((fn) => fn.metricErrors({ statistic: 'Sum' })),
        perFunction((fn) => fn.metricThrottles({ statistic: 'Sum' })),
      ),
      graph(
        'Function duration p99 (ms)',
        perFunction((fn) => fn.metricDuration({ statistic: 'p99' })),
      ),
    );
    // Shadow mode's own health: a failed shadow write is an execution the shadow report cannot see.
    this.dashboard.addWidgets(
      graph(
        'Shadow mode (beside an existing consumer)',
        [MetricName.ShadowWriteFailed, MetricName.ShadowIdentityFailed].map(sum),
      ),
      // Recurring jobs (the `schedules` prop): ticks that created a job, replays, and ticks without a job.
      graph('Schedule ticks', [MetricName.ScheduleTicks, MetricName.ScheduleTickReplays].map(sum), [
        leasefenceMetric(props.serviceName, MetricName.ScheduleTicksMissed, 'Maximum'),
        sum(MetricName.ScheduleTicksRefused),
      ]),
      // A line per schedule (found by SEARCH, so the dashboard needs no schedule names): the silence alarms read these.
      graph('Schedule tick deliveries, per schedule', [scheduleDeliveries(props.serviceName)]),
    );
  }
}

/** Every schedule's ScheduleTickDeliveries of this service, one line each (a SEARCH over the Schedule dimension). */
function scheduleDeliveries(serviceName: string): cloudwatch.MathExpression {
  const search = `{${METRIC_NAMESPACE},${METRIC_SCHEDULE_DIMENSION},${METRIC_SERVICE_DIMENSION}} MetricName="${MetricName.ScheduleTickDeliveries}" ${METRIC_SERVICE_DIMENSION}="${serviceName}"`;
  return new cloudwatch.MathExpression({
    expression: `SEARCH('${search}', 'Sum', 300)`,
    usingMetrics: {},
    label: '',
    period: Duration.minutes(5),
  });
}

export { JobDashboard, type JobDashboardProps };
