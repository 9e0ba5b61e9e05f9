import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, METRIC_SERVICE_DIMENSION, MetricName } from '../../lib/metric-names.js';

/** Thresholds of the alarms; each alarm fires when its value over one 5-minute period reaches the threshold. */
interface AlarmThresholds {
  /** Sum of heartbeats skipped because the handler reported no progress (claimed but not progressing). */
  heartbeatSkippedNoProgress: number;
  /** Maximum age of the oldest `unknown` item, in seconds (needs reconciliation by a human). */
  oldestUnknownAgeSeconds: number;
  /** Sum of quarantined messages/items. */
  quarantined: number;
  /** Sum of lease takeovers. */
  takeovers: number;
  /** Sum of fenced writes rejected because a newer claim wrote first. */
  staleFenceRejected: number;
  /** Maximum number of visible messages on the DLQ. */
  deadLetterQueueDepth: number;
}

/** Defaults: anything unusual pages, except takeovers, which a crash or timeout causes occasionally. */
const DEFAULT_ALARM_THRESHOLDS: AlarmThresholds = {
  heartbeatSkippedNoProgress: 3,
  oldestUnknownAgeSeconds: 3600,
  quarantined: 1,
  takeovers: 5,
  staleFenceRejected: 1,
  deadLetterQueueDepth: 1,
};

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

/** What the alarms watch. */
interface JobAlarmsProps {
  serviceName: string;
  deadLetterQueue: sqs.IQueue;
  thresholds?: Partial<AlarmThresholds>;
  alarmTopic?: sns.ITopic;
}

/** The six leasefence alarms, notifying an optional SNS topic on ALARM and on OK. */
class JobAlarms extends Construct {
  /** Alarms by threshold key. */
  readonly alarms: Record<keyof AlarmThresholds, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: JobAlarmsProps) {
    super(scope, id);
    const thresholds = { ...DEFAULT_ALARM_THRESHOLDS, ...props.thresholds };
    const metric = (name: MetricName, statistic: 'Sum' | 'Maximum') =>
      leasefenceMetric(props.serviceName, name, statistic);
    const make = (key: keyof AlarmThresholds, source: cloudwatch.IMetric, description: string) => {
      const alarm = new cloudwatch.Alarm(this, key, {
        metric: source,
        threshold: thresholds[key],
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `leasefence ${props.serviceName}: ${description}`,
      });
      if (props.alarmTopic) {
        alarm.addAlarmAction(new SnsAction(props.alarmTopic));
        alarm.addOkAction(new SnsAction(props.alarmTopic));
      }
      return alarm;
    };
    this.alarms = {
      heartbeatSkippedNoProgress: make(
        'heartbeatSkippedNoProgress',
        metric(MetricName.HeartbeatSkippedNoProgress, 'Sum'),
        'claimed jobs are not reporting progress; their leases will lapse and be taken over.',
      ),
      oldestUnknownAgeSeconds: make(
        'oldestUnknownAgeSeconds',
        metric(MetricName.OldestUnknownAgeSeconds, 'Maximum'),
        'an item has been parked as unknown for too long; reconcile it and resolve it with the admin API.',
      ),
      quarantined: make(
        'quarantined',
        metric(MetricName.Quarantined, 'Sum'),
        'messages or items were quarantined (bad input, payload conflict, unknown job type).',
      ),
      takeovers: make(
        'takeovers',
        metric(MetricName.Takeovers, 'Sum'),
        'leases are expiring and being taken over; workers crash, time out or stall.',
      ),
      staleFenceRejected: make(
        'staleFenceRejected',
        metric(MetricName.StaleFenceRejected, 'Sum'),
        'a superseded worker tried to write a fenced record; the fence held, but leases are too short.',
      ),
      deadLetterQueueDepth: make(
        'deadLetterQueueDepth',
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
        'messages reached the dead-letter queue; inspect them and redrive with the admin API.',
      ),
    };
  }
}

export { type AlarmThresholds, DEFAULT_ALARM_THRESHOLDS, JobAlarms, type JobAlarmsProps, leasefenceMetric };
