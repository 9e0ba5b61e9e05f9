import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * SQS's in-flight quota of a standard queue (messages received and not yet deleted): about 120,000. Past it a
 * long-polling receiver (the Lambda event source) gets no messages and no error, so the backlog only grows.
 */
const SQS_IN_FLIGHT_QUOTA = 120_000;

/** Default threshold: three quarters of the quota, so the page comes while there is still room to act. */
const DEFAULT_IN_FLIGHT_THRESHOLD = 90_000;

/** Rejects a threshold that cannot page before the quota binds. */
function checkInFlightThreshold(threshold: number | undefined): void {
  if (threshold === undefined) return;
  if (!Number.isInteger(threshold) || threshold < 1 || threshold >= SQS_IN_FLIGHT_QUOTA) {
    throw new Error(`inFlightAlarmThreshold must be an integer in 1..${SQS_IN_FLIGHT_QUOTA - 1}, got ${threshold}`);
  }
}

/**
 * An alarm on the jobs queue's `ApproximateNumberOfMessagesNotVisible` (maximum over 5 minutes), notifying the
 * topic on ALARM and OK: in flight = jobs/s × (run time + the failure dwell of retried records); see
 * docs/SCALE.md, "In-flight messages". Missing data is not breaching (an idle queue reports nothing).
 */
function createInFlightAlarm(
  scope: Construct,
  options: { serviceName: string; queue: sqs.IQueue; alarmTopic: sns.ITopic; threshold?: number },
): cloudwatch.Alarm {
  const threshold = options.threshold ?? DEFAULT_IN_FLIGHT_THRESHOLD;
  const alarm = new cloudwatch.Alarm(scope, 'InFlightMessagesAlarm', {
    metric: options.queue.metricApproximateNumberOfMessagesNotVisible({
      statistic: 'Maximum',
      period: Duration.minutes(5),
    }),
    threshold,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription: `leasefence ${options.serviceName}: ${threshold} or more jobs-queue messages in flight (SQS stops delivering near ${SQS_IN_FLIGHT_QUOTA}): raise the worker's concurrency or shorten the jobs`,
  });
  const action = new SnsAction(options.alarmTopic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
}

export { checkInFlightThreshold, createInFlightAlarm, DEFAULT_IN_FLIGHT_THRESHOLD, SQS_IN_FLIGHT_QUOTA };
