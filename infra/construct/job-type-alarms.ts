import { createHash } from 'node:crypto';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { parseAlertRoute } from '../../lib/alert-route.js';
import { InvalidInputError } from '../../lib/errors.js';
import {
  METRIC_JOB_TYPE_DIMENSION,
  METRIC_NAMESPACE,
  METRIC_SERVICE_DIMENSION,
  MetricName,
} from '../../lib/metric-names.js';
import { ALARM_PERIOD, type AlarmThresholds } from './alarms.js';

/** The alarms every routed job type gets, each on that type's copy of the metric (JobType dimension). */
const JOB_TYPE_ALARMS = {
  parkedUnknown: {
    metric: MetricName.Unknown,
    threshold: () => 1,
    description: 'an item was parked as unknown: reconcile it with its target and resolve it (see its runbook).',
  },
  quarantined: {
    metric: MetricName.Quarantined,
    threshold: (t: AlarmThresholds) => t.quarantined,
    description: 'messages or items were quarantined (bad payload, payload conflict, unsupported version).',
  },
  staleFenceRejected: {
    metric: MetricName.StaleFenceRejected,
    threshold: (t: AlarmThresholds) => t.staleFenceRejected,
    description: 'a superseded worker tried to write a fenced record; the fence held, but leases are too short.',
  },
  effectRefusedInLeaseDoubt: {
    metric: MetricName.EffectRefusedInLeaseDoubt,
    threshold: (t: AlarmThresholds) => t.effectRefusedInLeaseDoubt,
    description: 'an attempt in lease doubt tried to start an effect and was refused.',
  },
  leaseRenewalFailed: {
    metric: MetricName.LeaseRenewalFailed,
    threshold: (t: AlarmThresholds) => t.leaseRenewalFailed,
    description: 'lease renewals failed: attempts entered lease doubt and started no new effect.',
  },
} as const;

/** Key of one per-job-type alarm. */
type JobTypeAlarmKey = keyof typeof JOB_TYPE_ALARMS;

/** SNS allows at most 150 value combinations in one filter policy. */
const MAX_FILTER_VALUES = 150;

/**
 * Name of a job type's alarm: `leasefence/<service>/<jobType>/<key>`. `/` is in neither a service name nor a job
 * type, so the prefix `leasefence/<service>/<jobType>/` matches that job type's alarms and no other's.
 */
function jobTypeAlarmName(serviceName: string, jobType: string, key: JobTypeAlarmKey): string {
  return `${jobTypeAlarmPrefix(serviceName, jobType)}${key}`;
}

function jobTypeAlarmPrefix(serviceName: string, jobType: string): string {
  return `leasefence/${serviceName}/${jobType}/`;
}

/** What the per-job-type alarms watch and whom they notify. */
interface JobTypeAlarmsProps {
  serviceName: string;
  /** Job type → alert route, already checked by parseAlertRoutes. */
  routes: Record<string, string>;
  /** The construct's alarm topic: where label routes go. */
  defaultTopic: sns.ITopic;
  thresholds: AlarmThresholds;
}

/**
 * Each routed job type's alarms (parked unknown, quarantines, stale-fence rejections, lease doubt), notifying its
 * route on ALARM and OK: an SNS topic ARN directly, a label through the default topic (subscribe with
 * alertRouteFilter(label)). Job types without a route have none (check control 7 fails on them).
 */
class JobTypeAlarms extends Construct {
  /** Alarms by job type, then key. */
  readonly alarms: Record<string, Record<JobTypeAlarmKey, cloudwatch.Alarm>>;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: JobTypeAlarmsProps,
  ) {
    super(scope, id);
    const topics = new Map<string, sns.ITopic>();
    const topicOf = (route: string): sns.ITopic => {
      const parsed = parseAlertRoute(route);
      if (parsed.kind === 'label') return props.defaultTopic;
      const known = topics.get(parsed.topicArn);
      if (known) return known;
      const digest = createHash('sha256').update(parsed.topicArn).digest('hex').slice(0, 12);
      const imported = sns.Topic.fromTopicArn(this, `RouteTopic${digest}`, parsed.topicArn);
      topics.set(parsed.topicArn, imported);
      return imported;
    };
    this.alarms = Object.fromEntries(
      Object.entries(props.routes).map(([jobType, route]) => [jobType, this.alarmsOf(jobType, topicOf(route))]),
    );
  }

  /**
   * The subscription filter (SNS message-body policy on AlarmName prefixes) that lets through exactly the alarms
   * of the job types routed to `label`. InvalidInputError when no job type names that label, or when they are
   * more than one SNS filter policy can hold.
   */
  filterOf(label: string): { filterPolicyWithMessageBody: Record<string, sns.FilterOrPolicy> } {
    const jobTypes = Object.entries(this.props.routes)
      .filter(([, route]) => route === label && parseAlertRoute(route).kind === 'label')
      .map(([jobType]) => jobType);
    const issue = (message: string) => new InvalidInputError(message, [{ path: 'label', message }]);
    if (jobTypes.length === 0) throw issue(`no job type in alertRoutes is routed to the label ${label}`);
    if (jobTypes.length > MAX_FILTER_VALUES) {
      throw issue(`${jobTypes.length} job types route to ${label}; one SNS filter holds ${MAX_FILTER_VALUES}`);
    }
    const matchPrefixes = jobTypes.map((jobType) => jobTypeAlarmPrefix(this.props.serviceName, jobType));
    return {
      filterPolicyWithMessageBody: {
        AlarmName: sns.FilterOrPolicy.filter(sns.SubscriptionFilter.stringFilter({ matchPrefixes })),
      },
    };
  }

  private alarmsOf(jobType: string, topic: sns.ITopic): Record<JobTypeAlarmKey, cloudwatch.Alarm> {
    const { serviceName, thresholds } = this.props;
    const action = new SnsAction(topic);
    const entries = (Object.keys(JOB_TYPE_ALARMS) as JobTypeAlarmKey[]).map((key) => {
      const spec = JOB_TYPE_ALARMS[key];
      const alarm = new cloudwatch.Alarm(this, `${jobType}-${key}`, {
        alarmName: jobTypeAlarmName(serviceName, jobType, key),
        metric: new cloudwatch.Metric({
          namespace: METRIC_NAMESPACE,
          metricName: spec.metric,
          dimensionsMap: { [METRIC_SERVICE_DIMENSION]: serviceName, [METRIC_JOB_TYPE_DIMENSION]: jobType },
          statistic: 'Sum',
          period: ALARM_PERIOD,
        }),
        threshold: spec.threshold(thresholds),
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `leasefence ${serviceName}, job type ${jobType}: ${spec.description}`,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return [key, alarm] as const;
    });
    return Object.fromEntries(entries) as Record<JobTypeAlarmKey, cloudwatch.Alarm>;
  }
}

export { JOB_TYPE_ALARMS, type JobTypeAlarmKey, JobTypeAlarms, jobTypeAlarmName };
