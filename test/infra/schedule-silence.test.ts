import { App, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { scheduleSilenceAlarms, silenceWindow } from '../../infra/construct/schedule-silence.js';
import { defineSchedules } from '../../lib/messaging/schedule.js';

const FROM = Date.UTC(2026, 11, 1, 0, 0, 0);
const utc = (expression: string) => ({ expression, timeZone: 'UTC' });

describe('schedule silence window: the longest gap between ticks plus slack, within CloudWatch limits', () => {
  it.each([
    // gap + 900 s of Scheduler retries + 300 s of metric delay
    ['rate(1 minute)', { windowSeconds: 1_260, periodSeconds: 300, evaluationPeriods: 5 }],
    ['rate(1 hour)', { windowSeconds: 4_800, periodSeconds: 300, evaluationPeriods: 16 }],
    // a weekday cron's longest gap is Friday 09:00 to Monday 09:00
    ['cron(0 9 ? * MON-FRI *)', { windowSeconds: 72 * 3600 + 1_200, periodSeconds: 3600, evaluationPeriods: 73 }],
    ['rate(6 days)', { windowSeconds: 6 * 86_400 + 1_200, periodSeconds: 3600, evaluationPeriods: 145 }],
  ])('%s', (expression, expected) => {
    expect(silenceWindow(utc(expression), FROM)).toEqual(expected);
  });

  it('adds the flexible window to the silence it tolerates', () => {
    expect(silenceWindow(utc('rate(1 hour)'), FROM, 900)).toMatchObject({
      windowSeconds: 5_700,
      evaluationPeriods: 19,
    });
  });

  it('finds the DST change of a zoned daily cron: 25 h, so hourly periods', () => {
    const window = silenceWindow({ expression: 'cron(30 1 * * ? *)', timeZone: 'America/New_York' }, FROM);
    expect(window).toEqual({ windowSeconds: 25 * 3600 + 1_200, periodSeconds: 3600, evaluationPeriods: 26 });
  });

  it('gives no window to a one-shot, a cron that ends, or ticks further apart than 7 days', () => {
    expect(silenceWindow(utc('at(2027-01-01T00:00:00)'), FROM)).toHaveProperty('reason', expect.stringMatching(/ends/));
    expect(silenceWindow(utc('cron(0 9 * * ? 2026)'), FROM)).toHaveProperty('reason', expect.stringMatching(/ends/));
    expect(silenceWindow(utc('cron(0 9 1 * ? *)'), FROM)).toHaveProperty('reason', expect.stringMatching(/7-day/));
    expect(silenceWindow(utc('rate(7 days)'), FROM)).toHaveProperty('reason', expect.stringMatching(/7-day/));
  });

  it('makes no alarm for such a schedule and says so in a synth warning naming it', () => {
    const stack = new Stack(new App(), 'Silence');
    const schedules = defineSchedules([
      { name: 'launch', jobType: 'ping', tenantId: 'acme', payload: {}, expression: 'at(2027-01-01T00:00:00)' },
      { name: 'minutely', jobType: 'ping', tenantId: 'acme', payload: {}, expression: 'rate(1 minute)' },
    ]);
    const action: cloudwatch.IAlarmAction = {
      bind: () => ({ alarmActionArn: 'arn:aws:sns:eu-west-1:111111111111:t' }),
    };
    const alarms = scheduleSilenceAlarms(stack, { schedules, serviceName: 'svc', action, from: FROM });

    // Read from the construct tree (no synth: a synth costs seconds on CI, and the annotations are metadata already).
    expect(Object.keys(alarms)).toEqual(['minutely']);
    expect(stack.node.findAll().filter((node) => node instanceof cloudwatch.Alarm)).toHaveLength(1);
    const warnings = stack.node.metadata.filter((entry) => entry.type === 'aws:cdk:warning');
    expect(warnings.map((warning) => String(warning.data))).toEqual([
      expect.stringMatching(/^schedule launch has no silence alarm: it ends .*leasefence schedules/),
    ]);
  });
});
