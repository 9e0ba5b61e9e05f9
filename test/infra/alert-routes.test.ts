import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { beforeAll, describe, expect, it } from 'vitest';
import { createExampleJobs } from '../../examples/jobs/index.js';
import { EXAMPLE_WORKER_ENTRY, LeasefenceStack } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';
import { JOB_TYPE_ALARMS } from '../../infra/construct/job-type-alarms.js';
import { InvalidInputError } from '../../lib/errors.js';

const PAGER_ARN = 'arn:aws:sns:eu-west-1:123456789012:payments-pager';
const ROUTES = { refund: PAGER_ARN, ledger: 'pagerduty:ops', 'ledger-eu': 'pagerduty:ops', report: 'slack:#reports' };

type Resource = { Type: string; Properties: Record<string, unknown> };

function unbundledApp(): App {
  return new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
}

function routedQueue(routes: Record<string, string>): { stack: Stack; jobs: FencedJobQueue } {
  const stack = new Stack(unbundledApp(), 'Routed');
  const jobs = new FencedJobQueue(stack, 'Jobs', {
    workerEntry: EXAMPLE_WORKER_ENTRY,
    serviceName: 'billing',
    alertRoutes: routes,
  });
  return { stack, jobs };
}

/** Alarms by name, with their actions resolved to text (a Ref to the default topic names its logical id). */
function alarmsByName(stack: Stack): Map<string, Resource['Properties']> {
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  const alarms = Object.values(resources).filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
  return new Map(
    alarms.flatMap((alarm) => {
      const name = alarm.Properties.AlarmName;
      return typeof name === 'string' ? [[name, alarm.Properties] as const] : [];
    }),
  );
}

describe('alert routes', () => {
  let stack: Stack;
  let jobs: FencedJobQueue;
  let alarms: Map<string, Resource['Properties']>;
  let defaultTopicRef: unknown;
  beforeAll(() => {
    ({ stack, jobs } = routedQueue(ROUTES));
    jobs.alarmTopic.addSubscription(
      new subscriptions.EmailSubscription('ops@example.com', jobs.alertRouteFilter('pagerduty:ops')),
    );
    alarms = alarmsByName(stack);
    defaultTopicRef = stack.resolve(jobs.alarmTopic.topicArn);
  });

  it('gives each routed job type one alarm per watched metric, on its JobType dimension', () => {
    for (const jobType of Object.keys(ROUTES)) {
      for (const [key, spec] of Object.entries(JOB_TYPE_ALARMS)) {
        const alarm = alarms.get(`leasefence/billing/${jobType}/${key}`);
        expect(alarm, `${jobType} ${key}`).toMatchObject({
          Namespace: 'Leasefence',
          MetricName: spec.metric,
          Statistic: 'Sum',
          Dimensions: [
            { Name: 'JobType', Value: jobType },
            { Name: 'service', Value: 'billing' },
          ],
        });
      }
    }
    const perType = [...alarms.keys()].filter((name) => name.startsWith('leasefence/billing/'));
    expect(perType).toHaveLength(Object.keys(ROUTES).length * Object.keys(JOB_TYPE_ALARMS).length);
  });

  it('notifies a topic ARN route directly, on ALARM and OK, and a label route through the default topic', () => {
    const refund = alarms.get('leasefence/billing/refund/quarantined');
    expect(refund).toMatchObject({ AlarmActions: [PAGER_ARN], OKActions: [PAGER_ARN] });
    const ledger = alarms.get('leasefence/billing/ledger/staleFenceRejected');
    expect(ledger?.AlarmActions).toEqual([defaultTopicRef]);
    expect(ledger?.OKActions).toEqual([defaultTopicRef]);
  });

  it("filters a label's subscription to exactly its job types' alarm names", () => {
    Template.fromStack(stack).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      FilterPolicyScope: 'MessageBody',
      FilterPolicy: {
        AlarmName: [{ prefix: 'leasefence/billing/ledger/' }, { prefix: 'leasefence/billing/ledger-eu/' }],
      },
    });
    // The `/` after the job type is what keeps `ledger` from also matching `ledger-eu`'s alarms.
    expect('leasefence/billing/ledger-eu/quarantined'.startsWith('leasefence/billing/ledger/')).toBe(false);
  });

  it('refuses a label no job type is routed to, and a topic ARN used as a label', () => {
    expect(() => jobs.alertRouteFilter('pagerduty:nobody')).toThrow(InvalidInputError);
    expect(() => jobs.alertRouteFilter(PAGER_ARN)).toThrow(InvalidInputError);
  });

  it.each([
    ['an SQS ARN', { refund: 'arn:aws:sqs:eu-west-1:123456789012:pager' }],
    ['an SNS ARN without an account', { refund: 'arn:aws:sns:eu-west-1::pager' }],
    ['a label with a space', { refund: 'pager duty' }],
    ['an empty route', { refund: '' }],
    ['a key that is not a job type', { 'bad type!': 'pagerduty:ops' }],
  ])('refuses %s at synth with InvalidInputError naming the entry', (_case, routes) => {
    const build = () =>
      new FencedJobQueue(new Stack(unbundledApp(), 'Bad'), 'Jobs', {
        workerEntry: EXAMPLE_WORKER_ENTRY,
        alertRoutes: routes,
      });
    expect(build).toThrow(InvalidInputError);
    expect(build).toThrow(/invalid alertRoutes/);
  });

  it("the project stack routes each example job type to its definition's alertRoute", () => {
    const project = new LeasefenceStack(unbundledApp(), 'Project');
    const names = [...alarmsByName(project).keys()];
    for (const job of createExampleJobs('leasefence-examples')) {
      expect(job.alertRoute).toBeDefined();
      expect(names).toContain(`leasefence/leasefence/${job.type}/parkedUnknown`);
    }
    expect(project.jobs.alertRouteFilter('pagerduty:payments').filterPolicyWithMessageBody).toHaveProperty('AlarmName');
  });
});
