import { Annotations, Duration } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { ScheduleDeclaration } from '../../lib/messaging/schedule.js';
import { longestTickGapMs } from '../../lib/messaging/schedule-gap.js';
import { TICK_MAX_AGE_SECONDS } from '../../lib/messaging/schedule-status.js';
import {
  METRIC_NAMESPACE,
  METRIC_SCHEDULE_DIMENSION,
  METRIC_SERVICE_DIMENSION,
  MetricName,
} from '../../lib/metric-names.js';

/** How late an EMF metric may reach CloudWatch after the tick function wrote it. */
const METRIC_DELAY_SECONDS = 5 * 60;
const DAY_SECONDS = 86_400;
/** CloudWatch: period × evaluation periods at most a day for periods under an hour, at most 7 days otherwise. */
const SHORT_PERIOD_LIMIT_SECONDS = DAY_SECONDS;
const LONG_PERIOD_LIMIT_SECONDS = 7 * DAY_SECONDS;

/** How a silence alarm evaluates: N consecutive periods without a delivery (N of N) is silence. */
interface SilenceWindow {
  /** The silence the alarm tolerates: the longest gap between ticks, the Scheduler's retries, the metric delay. */
  readonly windowSeconds: number;
  readonly periodSeconds: number;
  readonly evaluationPeriods: number;
}

/** Why a schedule gets no silence alarm. */
type NoSilenceAlarm = { readonly reason: string };

/**
 * The silence window of a schedule: its longest gap between ticks plus the Scheduler's retry window
 * (TICK_MAX_AGE_SECONDS), its flexible window and the metric delay, as 5-minute periods up to a day and hourly
 * periods up to 7 days (CloudWatch's limits). A schedule that ends (an at(), a cron's last year) or whose window
 * is over 7 days ▶ `{ reason }`: no alarm can tell its silence from its gaps. Pure.
 */
function silenceWindow(
  schedule: Pick<ScheduleDeclaration, 'expression' | 'timeZone'>,
  from: number,
  flexibleWindowSeconds = 0,
): SilenceWindow | NoSilenceAlarm {
  const gap = longestTickGapMs(schedule, from);
  if (gap === undefined)
    return { reason: 'it ends (an at() or a cron whose years run out): silence after it is expected' };
  const windowSeconds = Math.ceil(gap / 1000) + TICK_MAX_AGE_SECONDS + flexibleWindowSeconds + METRIC_DELAY_SECONDS;
  if (windowSeconds > LONG_PERIOD_LIMIT_SECONDS) {
    return {
      reason: `its ticks can be ${Math.round(gap / 3_600_000)} h apart, over CloudWatch's 7-day evaluation limit`,
    };
  }
  const periodSeconds = windowSeconds <= SHORT_PERIOD_LIMIT_SECONDS ? 300 : 3600;
  return { windowSeconds, periodSeconds, evaluationPeriods: Math.ceil(windowSeconds / periodSeconds) };
}

/** What the silence alarms need: the checked schedules, the service dimension, where to notify, the jitter. */
interface SilenceAlarmsProps {
  schedules: readonly ScheduleDeclaration[];
  serviceName: string;
  action: IAlarmAction;
  flexibleWindow?: Duration;
  /** Where the cron gaps are walked from (default: synth time; gaps over a year and a day do not depend on it). */
  from?: number;
}

/**
 * One alarm per schedule on the absence of its ScheduleTickDeliveries (treatMissingData BREACHING): ALARM once no
 * tick of it landed for its whole silence window, so a Scheduler that sends nothing at all is seen, not only a
 * tick that arrives after a gap. A new schedule is in ALARM until its first tick lands. A schedule silenceWindow
 * cannot alarm on gets none and a synth warning naming it (`leasefence schedules` still judges its ticks).
 */
function scheduleSilenceAlarms(scope: Construct, props: SilenceAlarmsProps): Record<string, cloudwatch.Alarm> {
  const from = props.from ?? Date.now();
  const flexible = props.flexibleWindow?.toSeconds() ?? 0;
  const alarms: Record<string, cloudwatch.Alarm> = {};
  for (const schedule of props.schedules) {
    const window = silenceWindow(schedule, from, flexible);
    if ('reason' in window) {
      Annotations.of(scope).addWarningV2(
        'leasefence:scheduleSilence',
        `schedule ${schedule.name} has no silence alarm: ${window.reason}. Watch it with leasefence schedules.`,
      );
      continue;
    }
    const alarm = new cloudwatch.Alarm(scope, `Silence-${schedule.name}`, {
      metric: new cloudwatch.Metric({
        namespace: METRIC_NAMESPACE,
        metricName: MetricName.ScheduleTickDeliveries,
        dimensionsMap: { [METRIC_SERVICE_DIMENSION]: props.serviceName, [METRIC_SCHEDULE_DIMENSION]: schedule.name },
        statistic: 'Sum',
        period: Duration.seconds(window.periodSeconds),
      }),
      threshold: 1,
      evaluationPeriods: window.evaluationPeriods,
      datapointsToAlarm: window.evaluationPeriods,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: `leasefence ${props.serviceName}: no tick of schedule ${schedule.name} landed for ${window.periodSeconds * window.evaluationPeriods} s (its longest gap between ticks plus retries and metric delay): the Scheduler sent nothing or every delivery failed; see leasefence schedules. A new schedule is in ALARM until its first tick.`,
    });
    alarm.addAlarmAction(props.action);
    alarm.addOkAction(props.action);
    alarms[schedule.name] = alarm;
  }
  return alarms;
}

export { type NoSilenceAlarm, type SilenceWindow, scheduleSilenceAlarms, silenceWindow };
