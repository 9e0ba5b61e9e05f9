import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** The share of the event source's ceiling at which the worker counts as saturated. */
const SATURATION = 0.9;

/**
 * An alarm on the worker's `ConcurrentExecutions` (maximum per minute, 5 minutes in a row) at 90 % of what the event
 * source may invoke at once (maxConcurrency, or maximumPollers × 10): the queue's backlog grows from there. Sized
 * from the mode, so it moves with it; notifies the topic on ALARM and OK; missing data is not breaching.
 */
function createConcurrencyAlarm(
  scope: Construct,
  options: { serviceName: string; worker: lambda.IFunction; ceiling: number; alarmTopic: sns.ITopic },
): cloudwatch.Alarm {
  const threshold = Math.max(1, Math.floor(options.ceiling * SATURATION));
  const alarm = new cloudwatch.Alarm(scope, 'WorkerConcurrencyAlarm', {
    metric: options.worker.metric('ConcurrentExecutions', { statistic: 'Maximum', period: Duration.minutes(1) }),
    threshold,
    evaluationPeriods: 5,
    datapointsToAlarm: 5,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription: `leasefence ${options.serviceName}: the worker ran ${threshold} or more invocations at once for 5 minutes, 90 % of the event source's ${options.ceiling}: the backlog grows; raise maxConcurrency or provisionedPollers.maximumPollers (docs/SCALE.md)`,
  });
  const action = new SnsAction(options.alarmTopic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
}

export { createConcurrencyAlarm };
