import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { InvalidInputError } from '../../lib/errors.js';

/** A stack without bundling (props only; bundling is covered by synth.test.ts). */
function unbundledStack(): Stack {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, 'Lanes');
}

/** The worker function's properties (its description starts with "leasefence worker"). */
function workerProperties(template: Template): Record<string, unknown> {
  const functions = template.findResources('AWS::Lambda::Function', {
    Properties: { Description: Match.stringLikeRegexp('^leasefence worker') },
  });
  return Object.values(functions)[0]?.Properties as Record<string, unknown>;
}

describe('FencedJobQueue priorities: a bulk lane with its own capped event source', () => {
  it('adds the bulk queue and a second mapping capped below the worker, whose reserved concurrency covers both', () => {
    const stack = unbundledStack();
    const jobs = new FencedJobQueue(stack, 'Jobs', {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      maxConcurrency: 8,
      priorities: { bulkMaxConcurrency: 3 },
    });
    const template = Template.fromStack(stack);
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).map(
      (resource) => (resource.Properties as { ScalingConfig?: { MaximumConcurrency?: number } }).ScalingConfig,
    );
    expect(mappings.map((scaling) => scaling?.MaximumConcurrency).sort()).toEqual([3, 8]);
    const worker = workerProperties(template);
    // Urgent work keeps all 8 while the bulk lane uses its 3.
    expect(worker.ReservedConcurrentExecutions).toBe(11);
    const variables = (worker.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables[EnvironmentVariable.bulkQueueUrl]).toEqual({
      Ref: stack.getLogicalId(jobs.bulkQueue?.node.defaultChild as never),
    });
    // Same redrive, encryption and TLS-only policy as the jobs queue.
    template.resourceCountIs('AWS::SQS::Queue', 3);
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }),
      KmsMasterKeyId: 'alias/aws/sqs',
    });
    template.resourceCountIs('AWS::SQS::QueuePolicy', 3);
  });

  it('adds nothing without priorities, and refuses a cap outside AWS range with a typed error', () => {
    const stack = unbundledStack();
    const jobs = new FencedJobQueue(stack, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY });
    expect(jobs.bulkQueue).toBeUndefined();
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    expect(workerProperties(template).ReservedConcurrentExecutions).toBe(10);
    expect(
      () =>
        new FencedJobQueue(unbundledStack(), 'Bad', {
          workerEntry: EXAMPLE_WORKER_ENTRY,
          priorities: { bulkMaxConcurrency: 1 },
        }),
    ).toThrow(InvalidInputError);
  });

  it('lets a producer send to the bulk lane too', () => {
    const stack = unbundledStack();
    const jobs = new FencedJobQueue(stack, 'Jobs', {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      priorities: { bulkMaxConcurrency: 2 },
    });
    const producer = new iam.Role(stack, 'Producer', {
      assumedBy: new iam.AccountRootPrincipal(),
    });
    jobs.grantSendJobs(producer);
    const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy');
    const statements = Object.values(policies).flatMap(
      (policy) => (policy.Properties as { PolicyDocument: { Statement: { Sid?: string }[] } }).PolicyDocument.Statement,
    );
    expect(statements.some((statement) => statement.Sid === 'SendBulkJobs')).toBe(true);
  });
});
