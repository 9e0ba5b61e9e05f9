import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue, type FencedJobQueueProps } from '../../infra/construct/index.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { conditionMatches } from './support/iam-conditions.js';
import {
  denialsOfRole,
  logicalIdOf,
  permissionsOfRole,
  render,
  type Template as TemplateJson,
} from './support/template-queries.js';

const unbundledStack = () =>
  new Stack(new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } }), 'Guarded');

let stack: Stack;
let jobs: FencedJobQueue;
let json: TemplateJson;
let deployRole: iam.Role;

beforeAll(() => {
  stack = unbundledStack();
  const privacy = new iam.Role(stack, 'Privacy', { assumedBy: new iam.AccountRootPrincipal() });
  jobs = new FencedJobQueue(stack, 'Jobs', {
    workerEntry: EXAMPLE_WORKER_ENTRY,
    adminRoutePrincipals: { erasePayloads: [privacy], raiseFences: ['AROARECOVERYROLE0000'] },
  });
  // A deploy role with every Lambda permission: the kind of principal the guard exists for.
  deployRole = new iam.Role(stack, 'Deploy', { assumedBy: new iam.AccountRootPrincipal() });
  deployRole.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['lambda:*'], resources: [jobs.admin.functionArn] }),
  );
  jobs.guardAdminInvoke(deployRole);
  json = Template.fromStack(stack).toJSON() as TemplateJson;
});

describe('admin invoke guard: lambda:InvokeFunction on the admin function only through its Function URL', () => {
  /** Whether the role may call lambda:InvokeFunction on the admin function, via the URL or directly. */
  function mayInvoke(viaUrl: boolean | undefined): boolean {
    const roleId = logicalIdOf(stack, deployRole);
    const keys: Record<string, string> = viaUrl === undefined ? {} : { 'lambda:InvokedViaFunctionUrl': String(viaUrl) };
    const applies = (entry: { action: string; resource: string; condition?: unknown }) =>
      (entry.action === 'lambda:InvokeFunction' || entry.action === 'lambda:*') &&
      entry.resource.includes(logicalIdOf(stack, jobs.admin)) &&
      conditionMatches(entry.condition, { keys });
    return permissionsOfRole(json, roleId).some(applies) && !denialsOfRole(json, roleId).some(applies);
  }

  it('denies a direct Invoke (no InvokedViaFunctionUrl key, or false) despite lambda:*, and leaves the URL path', () => {
    expect(mayInvoke(undefined)).toBe(false);
    expect(mayInvoke(false)).toBe(false);
    expect(mayInvoke(true)).toBe(true);
  });

  it('covers the function, its versions and aliases', () => {
    const denied = denialsOfRole(json, logicalIdOf(stack, deployRole)).map((entry) => entry.resource);
    const admin = logicalIdOf(stack, jobs.admin);
    expect(denied).toEqual([`${admin}.Arn`, `${admin}.Arn:*`]);
  });

  it('is offered as a statement for permissions boundaries and SCPs', () => {
    expect(stack.resolve(jobs.adminInvokeGuard().toStatementJson())).toMatchObject({
      Effect: 'Deny',
      Action: 'lambda:InvokeFunction',
      Condition: { BoolIfExists: { 'lambda:InvokedViaFunctionUrl': 'false' } },
    });
  });
});

describe('per-route allowlists reach the admin function', () => {
  it('as LEASEFENCE_ADMIN_ROUTE_PRINCIPALS, roles by their ARN', () => {
    const admin = json.Resources[logicalIdOf(stack, jobs.admin)]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    const value = render(admin.Variables[EnvironmentVariable.adminRoutePrincipals]);
    expect(value).toContain('"erasePayloads":["');
    expect(value).toContain(`${logicalIdOf(stack, stack.node.findChild('Privacy') as iam.Role)}.Arn`);
    expect(value).toContain('"raiseFences":["AROARECOVERYROLE0000"]');
  });

  it.each([
    [{ eraseEverything: ['AROARECOVERYROLE0000'] }, /not one of/],
    [{ erasePayloads: [] }, /is empty/],
    [{ erasePayloads: ['*'] }, /not an IAM unique id/],
  ])('refuses %j at synth', (allowlists, message) => {
    const props = {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      adminRoutePrincipals: allowlists,
    } as unknown as FencedJobQueueProps;
    expect(() => new FencedJobQueue(unbundledStack(), 'Jobs', props)).toThrow(message);
  });
});
