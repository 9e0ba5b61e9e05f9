import { App, Stack } from 'aws-cdk-lib';
import { Template as Assertions } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue, type FencedJobQueueProps } from '../../infra/construct/index.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { parseSchedulesVariable } from '../../lib/messaging/schedules-variable.js';
import { SETTINGS_PARTITION } from '../../lib/store/work-items/fence-epoch.js';
import { logicalIdOf, permissionsOfFunction, permissionsOfRole, type Template } from './support/template-queries.js';

const SCHEDULES: FencedJobQueueProps['schedules'] = [
  {
    name: 'nightly-invoices',
    jobType: 'send-invoice',
    tenantId: 'acme',
    payload: { batch: 'nightly' },
    expression: 'cron(0 2 * * ? *)',
    timeZone: 'Europe/Berlin',
  },
  { name: 'usage-rollup', jobType: 'send-invoice', tenantId: 'globex', payload: {}, expression: 'rate(15 minutes)' },
];

function synth(props: Partial<FencedJobQueueProps> = {}) {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Scheduled');
  const jobs = new FencedJobQueue(stack, 'Jobs', {
    workerEntry: EXAMPLE_WORKER_ENTRY,
    alarmEmail: 'ops@example.com',
    schedules: SCHEDULES,
    ...props,
  });
  return { app, stack, jobs };
}

describe('construct schedules: EventBridge Scheduler ticks that enqueue through the library', () => {
  let built: ReturnType<typeof synth>;
  let template: Template;
  let assertions: Assertions;
  beforeAll(() => {
    built = synth();
    assertions = Assertions.fromStack(built.stack);
    template = assertions.toJSON() as Template;
  });

  it('creates one schedule per declaration: the expression in its zone, window off, the tick time as input, retries and a DLQ', () => {
    const schedules = assertions.findResources('AWS::Scheduler::Schedule');
    expect(Object.keys(schedules)).toHaveLength(2);
    const tickId = logicalIdOf(built.stack, built.jobs.schedules?.tickFunction as never);
    const dlqId = logicalIdOf(built.stack, built.jobs.schedules?.deadLetterQueue as never);
    const nightly = Object.values(schedules).find(
      (resource) => resource.Properties.ScheduleExpression === 'cron(0 2 * * ? *)',
    );
    expect(nightly?.Properties).toMatchObject({
      ScheduleExpressionTimezone: 'Europe/Berlin',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [tickId, 'Arn'] },
        RetryPolicy: { MaximumEventAgeInSeconds: 900, MaximumRetryAttempts: 10 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
      },
    });
    expect(JSON.parse(nightly?.Properties.Target.Input)).toEqual({
      schedule: 'nightly-invoices',
      scheduledTime: '<aws.scheduler.scheduled-time>',
    });
  });

  it('the Scheduler role may only invoke the tick function and dead-letter a tick, for this account and group', () => {
    const roles = assertions.findResources('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: {
          Statement: [{ Principal: { Service: 'scheduler.amazonaws.com' } }],
        },
      },
    });
    const [roleId, role] = Object.entries(roles)[0] ?? [];
    expect(Object.keys(roles)).toHaveLength(1);
    const condition = role?.Properties.AssumeRolePolicyDocument.Statement[0].Condition.StringEquals;
    expect(Object.keys(condition ?? {}).sort()).toEqual(['aws:SourceAccount', 'aws:SourceArn']);
    const lines = permissionsOfRole(template, roleId ?? '').map((entry) => `${entry.action} on ${entry.resource}`);
    const tickId = logicalIdOf(built.stack, built.jobs.schedules?.tickFunction as never);
    const dlqId = logicalIdOf(built.stack, built.jobs.schedules?.deadLetterQueue as never);
    expect([...new Set(lines)].sort()).toEqual(
      [`lambda:InvokeFunction on ${tickId}.Arn`, `sqs:SendMessage on ${dlqId}.Arn`].sort(),
    );
  });

  it("the tick function writes only the schedules' tenants' keys, reads their rows and the fence epoch, wakes the jobs queue", () => {
    const perms = permissionsOfFunction(built.stack, template, built.jobs.schedules?.tickFunction as never);
    const jobsId = logicalIdOf(built.stack, built.jobs.jobsTable);
    const payloadsId = logicalIdOf(built.stack, built.jobs.payloadsTable);
    const queueId = logicalIdOf(built.stack, built.jobs.queue);
    const tenants = ['acme#*', 'globex#*'];
    const keys = (list: string[]) => JSON.stringify({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': list } });
    const lines = perms
      .map(
        (entry) =>
          `${entry.action} on ${entry.resource}${entry.condition ? ` if ${JSON.stringify(entry.condition)}` : ''}`,
      )
      .filter((line) => !line.startsWith('logs:'))
      .map((line) =>
        line.replace(jobsId, 'JobsTable').replace(payloadsId, 'PayloadsTable').replace(queueId, 'JobsQueue'),
      );
    expect([...new Set(lines)].sort()).toEqual(
      [
        `dynamodb:GetItem on JobsTable.Arn if ${keys([...tenants, SETTINGS_PARTITION])}`,
        `dynamodb:PutItem on JobsTable.Arn if ${keys(tenants)}`,
        `dynamodb:PutItem on PayloadsTable.Arn if ${keys(tenants)}`,
        'sqs:SendMessage on JobsQueue.Arn',
      ].sort(),
    );
  });

  it('the tick function carries the checked schedules in its environment (payloads included: nothing secret)', () => {
    const functions = assertions.findResources('AWS::Lambda::Function', {
      Properties: { Description: 'leasefence schedule tick: enqueues one occurrence per tick of each schedule' },
    });
    const variables = Object.values(functions)[0]?.Properties.Environment.Variables;
    const schedules = parseSchedulesVariable(variables[EnvironmentVariable.schedules]);
    expect(schedules.map((schedule) => [schedule.name, schedule.timeZone, schedule.maxAttempts])).toEqual([
      ['nightly-invoices', 'Europe/Berlin', 3],
      ['usage-rollup', 'UTC', 3],
    ]);
  });

  it('alarms on a missed tick, a refused tick, tick errors and dead-lettered ticks, each notifying the topic', () => {
    const alarms = built.jobs.schedules?.alarms ?? {};
    expect(Object.keys(alarms).sort()).toEqual([
      'scheduleDeadLetters',
      'scheduleTickErrors',
      'scheduleTicksMissed',
      'scheduleTicksRefused',
    ]);
    const missed = Object.values(
      assertions.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'ScheduleTicksMissed' } }),
    );
    expect(missed).toHaveLength(1);
    expect(missed[0]?.Properties).toMatchObject({ Threshold: 1, Namespace: 'Leasefence' });
    expect(missed[0]?.Properties.AlarmActions).toHaveLength(1);
  });

  it('alarms per schedule when no tick landed for its longest gap plus slack, missing data breaching', () => {
    const silence = built.jobs.schedules?.silenceAlarms ?? {};
    expect(Object.keys(silence).sort()).toEqual(['nightly-invoices', 'usage-rollup']);
    const byName = (name: string) =>
      Object.values(
        assertions.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'ScheduleTickDeliveries' } }),
      )
        .map((resource) => resource.Properties)
        .filter((properties) => properties.Dimensions.some((entry: { Value: string }) => entry.Value === name));
    const common = {
      Namespace: 'Leasefence',
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    };
    // rate(15 minutes): 900 s + 900 s of retries + 300 s of metric delay = 2,100 s: seven 5-minute periods.
    expect(byName('usage-rollup')).toEqual([
      expect.objectContaining({ ...common, Period: 300, EvaluationPeriods: 7, DatapointsToAlarm: 7 }),
    ]);
    // 02:00 Berlin daily: 25 h across the autumn DST change + 20 min: over a day, so hourly periods, 26 of them.
    const [nightly] = byName('nightly-invoices');
    expect(nightly).toMatchObject({ ...common, Period: 3600, EvaluationPeriods: 26, DatapointsToAlarm: 26 });
    expect(nightly?.Dimensions).toContainEqual({ Name: 'service', Value: 'leasefence' });
    expect(nightly?.AlarmActions).toHaveLength(1);
    expect(nightly?.OKActions).toHaveLength(1);
  });

  it('cdk-nag finds nothing unacknowledged in a stack with schedules', () => {
    const report = new AwsSolutionsChecks(built.app, { verbose: true }).validateScope(built.stack);
    expect(
      report.violations.map(
        (violation) => `${violation.ruleName} ${violation.violatingResources.map((r) => r.constructPath)}`,
      ),
    ).toEqual([]);
  });

  it('without schedules there is no tick function, no Scheduler resource', () => {
    const plain = synth({ schedules: [] });
    expect(plain.jobs.schedules).toBeUndefined();
    expect(Object.keys(Assertions.fromStack(plain.stack).findResources('AWS::Scheduler::Schedule'))).toHaveLength(0);
  });

  it.each([
    [{ expression: 'cron(0 2 * * MON *)' }, /exactly one of day-of-month and day-of-week/],
    [{ timeZone: 'Europe/Atlantis' }, /unknown time zone/],
    [{ payload: { body: 'x'.repeat(3000) } }, /payload is over 2048/],
    [{ tenantId: 'bad#tenant' }, /tenantId/],
  ])('a bad schedule fails the synth naming the field: %o', (change, message) => {
    expect(() => synth({ schedules: [{ ...SCHEDULES[0], ...change } as never] })).toThrow(message);
  });

  it('refuses two schedules of one name, and more schedules than the environment can hold', () => {
    expect(() => synth({ schedules: [SCHEDULES[0], SCHEDULES[0]] as never })).toThrow(/used twice/);
    const many = Array.from({ length: 12 }, (_, index) => ({
      ...SCHEDULES[0],
      name: `report-${index}`,
      payload: { filler: 'y'.repeat(200) },
    }));
    expect(() => synth({ schedules: many as never })).toThrow(/over the 3072/);
  });
});
