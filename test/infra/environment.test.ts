import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY, LeasefenceStack } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { type DeploymentEnvironment, FencedJobQueue } from '../../infra/construct/index.js';

const app = () => new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
const tag = (value: string) => Match.arrayWith([{ Key: 'leasefence:environment', Value: value }]);

describe('deployment environment (what tools may inject test traffic into)', () => {
  it('is production unless said otherwise: tagged on the resources and output by the project stack', () => {
    const project = new LeasefenceStack(app(), 'Project');
    const template = Template.fromStack(project);
    expect(project.jobs.environment).toBe('production');
    template.hasResourceProperties('AWS::SQS::Queue', { Tags: tag('production') });
    template.hasResourceProperties('AWS::DynamoDB::Table', { Tags: tag('production') });
    template.hasOutput('Environment', { Value: 'production' });
  });

  it('a test stack says test', () => {
    const project = new LeasefenceStack(app(), 'Project', { jobs: { environment: 'test' } });
    Template.fromStack(project).hasOutput('Environment', { Value: 'test' });
    Template.fromStack(project).hasResourceProperties('AWS::Lambda::Function', { Tags: tag('test') });
  });

  it('refuses any other value at synth', () => {
    const build = () =>
      new FencedJobQueue(new Stack(app(), 'Bad'), 'Jobs', {
        workerEntry: EXAMPLE_WORKER_ENTRY,
        environment: 'prod' as DeploymentEnvironment,
      });
    expect(build).toThrow(/environment must be test, staging or production/);
  });
});

describe('fault injection for `check --stack` (the faultInjection prop)', () => {
  it('refuses it at synth on a production stack and on an unmarked one (production by default)', () => {
    const build = (environment?: DeploymentEnvironment) => () =>
      new FencedJobQueue(new Stack(app(), `Faults${environment ?? 'Unmarked'}`), 'Jobs', {
        workerEntry: EXAMPLE_WORKER_ENTRY,
        faultInjection: true,
        ...(environment ? { environment } : {}),
      });
    expect(build('production')).toThrow(/faultInjection: only on a stack marked test or staging/);
    expect(build()).toThrow(/faultInjection: only on a stack marked test or staging/);
  });

  it('on a test stack: a fault-plan secret the worker alone may read, named in its environment and output', () => {
    const project = new LeasefenceStack(app(), 'Project', { jobs: { environment: 'test', faultInjection: true } });
    const template = Template.fromStack(project);
    const secrets = template.findResources('AWS::SecretsManager::Secret');
    const plan = Object.keys(secrets).find((id) => id.includes('FaultPlan'));
    expect(plan).toBeDefined();
    template.hasOutput('FaultPlanSecretArn', { Value: { Ref: plan } });
    const withPlan = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
      JSON.stringify(fn).includes('LEASEFENCE_FAULT_PLAN_SECRET_ARN'),
    );
    expect(withPlan.map((fn) => String(fn.Properties.Description))).toEqual([
      'leasefence worker: claims and runs jobs from the jobs queue',
    ]);
    const readers = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy).includes(`"Ref":"${plan}"`),
    );
    expect(readers).toHaveLength(1);
    expect(JSON.stringify(readers[0])).not.toContain('secretsmanager:PutSecretValue');
  });

  it('is off by default: no secret, no variable, no output', () => {
    const project = new LeasefenceStack(app(), 'Project', { jobs: { environment: 'test' } });
    const template = Template.fromStack(project);
    expect(JSON.stringify(template.toJSON())).not.toContain('LEASEFENCE_FAULT_PLAN_SECRET_ARN');
    expect(Object.keys(template.findOutputs('FaultPlanSecretArn'))).toEqual([]);
  });
});

describe('the admin function knows how long a worker may run (the class D statement waits it out)', () => {
  it("gets LEASEFENCE_WORKER_MAX_RUN_MS = the worker's timeout, which it alone is given", () => {
    const stack = new Stack(app(), 'RunBound');
    new FencedJobQueue(stack, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY, workerTimeout: Duration.seconds(90) });
    const functions = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
    const bound = functions
      .map((fn) => ({
        description: String(fn.Properties.Description),
        value: fn.Properties.Environment?.Variables?.LEASEFENCE_WORKER_MAX_RUN_MS as string | undefined,
        timeout: fn.Properties.Timeout as number,
      }))
      .filter((fn) => fn.value !== undefined);
    const worker = functions.find((fn) => String(fn.Properties.Description).startsWith('leasefence worker'));

    expect(bound.map((fn) => fn.description)).toEqual([
      'leasefence admin: list, show, resolve, retry, cancel, erase, redrive',
    ]);
    expect(worker?.Properties.Timeout).toBe(90);
    expect(bound[0]?.value).toBe('90000');
  });
});
