import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';
import { EnvironmentVariable } from '../../lib/config.js';

/** A stack without bundling (props only; bundling is covered by synth.test.ts). */
function unbundledStack(): Stack {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, 'Cutover');
}

/** The environment variables of each function, by its description's first word after "leasefence". */
function environments(stack: Stack): Record<string, Record<string, unknown>> {
  const functions = Template.fromStack(stack).findResources('AWS::Lambda::Function');
  return Object.fromEntries(
    Object.values(functions).map((resource) => {
      const properties = resource.Properties as {
        Description: string;
        Environment: { Variables: Record<string, unknown> };
      };
      return [properties.Description.split(':')[0], properties.Environment.Variables];
    }),
  );
}

describe('FencedJobQueue disabledJobTypes: switch job types off per deployment', () => {
  it('sets LEASEFENCE_DISABLED_JOB_TYPES on the worker only', () => {
    const stack = unbundledStack();
    new FencedJobQueue(stack, 'Jobs', {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      disabledJobTypes: ['refund-settlement', 'statement-publication'],
    });
    const variables = environments(stack);
    expect(variables['leasefence worker']?.[EnvironmentVariable.disabledJobTypes]).toBe(
      'refund-settlement,statement-publication',
    );
    expect(variables['leasefence sweeper']?.[EnvironmentVariable.disabledJobTypes]).toBeUndefined();
    expect(variables['leasefence admin']?.[EnvironmentVariable.disabledJobTypes]).toBeUndefined();
  });

  it('sets nothing by default, and refuses a name that is not a job type', () => {
    const stack = unbundledStack();
    new FencedJobQueue(stack, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY });
    expect(environments(stack)['leasefence worker']?.[EnvironmentVariable.disabledJobTypes]).toBeUndefined();
    expect(
      () =>
        new FencedJobQueue(unbundledStack(), 'Bad', {
          workerEntry: EXAMPLE_WORKER_ENTRY,
          disabledJobTypes: ['no spaces'],
        }),
    ).toThrow(/invalid job type in disabledJobTypes: no spaces/);
  });
});
