import { App, Stack } from 'aws-cdk-lib';
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
