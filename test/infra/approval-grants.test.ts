import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { approvalRecordKey, TTL_ATTRIBUTE, tenantPartitionKeys } from '../../lib/store/table.js';
import { conditionMatches, type RequestContext } from './support/iam-conditions.js';
import {
  denialsOfRole,
  logicalIdOf,
  type Permission,
  permissionsOfRole,
  render,
  type Template as TemplateJson,
} from './support/template-queries.js';

/*
 * Issue #39, findings 2, 6 and 7 as the synthesized template shows them: no producer grant reaches an approval record,
 * every role of the construct that may send to the jobs queue is a known sender, and a tag-scoped producer's session
 * name is its tag.
 */

let stack: Stack;
let jobs: FencedJobQueue;
let json: TemplateJson;
const approvalKeys = [approvalRecordKey({ tenantId: 'acme', operationId: 'refund-1' }).pk, '#approval#0'];

beforeAll(() => {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  stack = new Stack(app, 'Approvals');
  jobs = new FencedJobQueue(stack, 'Jobs', {
    workerEntry: EXAMPLE_WORKER_ENTRY,
    schedules: [{ name: 'nightly', jobType: 'send-invoice', tenantId: 'acme', payload: {}, expression: 'rate(1 day)' }],
  });
  const role = (id: string) => new iam.Role(stack, id, { assumedBy: new iam.AccountRootPrincipal() });
  const acme = role('AcmeProducer');
  jobs.grantSendJobs(acme, { tenant: { tenantId: 'acme' } });
  jobs.grantTenantScopedAccess(
    acme,
    { tenantId: 'acme' },
    { jobsTableActions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
  );
  const broker = role('BrokeredProducer');
  jobs.grantSendJobs(broker, { tenant: { principalTag: 'tenant' } });
  jobs.grantTenantScopedAccess(broker, { principalTag: 'tenant' });
  jobs.grantSendJobs(role('TrustedApi'));
  json = Template.fromStack(stack).toJSON() as TemplateJson;
});

const roleIdOf = (role: iam.IRole) => logicalIdOf(stack, role as iam.Role);
const permissionsOf = (role: iam.IRole): Permission[] => permissionsOfRole(json, roleIdOf(role));
const child = (id: string) => stack.node.findChild(id) as iam.Role;

/** Whether some Allow of `permissions` applies to `action` on the jobs table in `key` (any tags given). */
function allows(permissions: Permission[], action: string, context: RequestContext): boolean {
  const jobsTable = `${logicalIdOf(stack, jobs.jobsTable)}.Arn`;
  return permissions.some(
    (entry) => entry.action === action && entry.resource === jobsTable && conditionMatches(entry.condition, context),
  );
}

describe('approval records: no grant leasefence hands a producer reaches them', () => {
  it.each([
    ['a tenant-scoped producer (grantSendJobs + grantTenantScopedAccess with UpdateItem)', 'AcmeProducer'],
    ['a tag-scoped producer', 'BrokeredProducer'],
    ['a trusted producer', 'TrustedApi'],
  ])('%s may neither put nor update an approval record, whatever its tag', (_name, id) => {
    const permissions = permissionsOf(child(id));
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem']) {
      for (const tags of [{ tenant: 'acme' }, { tenant: '' }, {}] as Array<Record<string, string>>) {
        for (const key of approvalKeys) {
          expect(allows(permissions, action, { principalTags: tags, leadingKeys: [key] }), `${action} ${key}`).toBe(
            false,
          );
        }
      }
    }
    // The same grants do reach the producer's own rows: the check is not vacuous.
    expect(
      allows(permissions, 'dynamodb:PutItem', {
        principalTags: { tenant: 'acme' },
        leadingKeys: [tenantPartitionKeys('acme')[0] as string],
      }),
    ).toBe(true);
  });

  it('the schedule tick reaches no approval record', () => {
    const tick = jobs.schedules?.tickRole as iam.Role;
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem']) {
      for (const key of approvalKeys) expect(allows(permissionsOf(tick), action, { leadingKeys: [key] })).toBe(false);
    }
  });

  it('the worker opens a record undecided only (a PutItem carrying a decision is denied) and never updates one; the sweeper never updates one', () => {
    const workerRole = jobs.worker.role as iam.Role;
    const denied = (role: iam.IRole, action: string, context: RequestContext) =>
      denialsOfRole(json, roleIdOf(role)).some(
        (entry) => entry.action === action && conditionMatches(entry.condition, context),
      );
    const key = approvalKeys[0] as string;
    const opening = [
      'pk',
      'sk',
      'kind',
      'tenantId',
      'operationId',
      'payloadHash',
      'approvers',
      'expiresAt',
      'openedAt',
      // the table's TTL (the record expires a retention period after its window)
      TTL_ATTRIBUTE,
    ];
    expect(allows(permissionsOf(workerRole), 'dynamodb:PutItem', { leadingKeys: [key] })).toBe(true);
    expect(
      denied(workerRole, 'dynamodb:PutItem', { leadingKeys: [key], keys: { 'dynamodb:Attributes': opening } }),
    ).toBe(false);
    for (const decided of ['decision', 'approverId', 'decidedAt', 'actor']) {
      const attributes = [...opening, decided];
      expect(
        denied(workerRole, 'dynamodb:PutItem', { leadingKeys: [key], keys: { 'dynamodb:Attributes': attributes } }),
      ).toBe(true);
    }
    expect(denied(workerRole, 'dynamodb:UpdateItem', { leadingKeys: [key] })).toBe(true);
    expect(denied(jobs.sweeper.role as iam.Role, 'dynamodb:UpdateItem', { leadingKeys: [key] })).toBe(true);
    expect(denied(jobs.admin.role as iam.Role, 'dynamodb:UpdateItem', { leadingKeys: [key] })).toBe(false);
  });
});

describe("leasefence's own senders are known senders", () => {
  it("every role of the stack with sqs:SendMessage on the jobs queue is in the worker's sender policy", () => {
    const queue = `${logicalIdOf(stack, jobs.queue)}.Arn`;
    const roles = Object.entries(json.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::IAM::Role')
      .map(([logicalId]) => logicalId)
      .filter((logicalId) =>
        permissionsOfRole(json, logicalId).some(
          (entry) => entry.action === 'sqs:SendMessage' && entry.resource === queue,
        ),
      );
    const worker = json.Resources[logicalIdOf(stack, jobs.worker)]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    const policy = JSON.parse(render(worker.Variables[EnvironmentVariable.senderTenants])) as Array<{ sender: string }>;
    const senders = policy.map((entry) => entry.sender);
    // worker, sweeper, admin, schedule tick, and the three producers.
    expect(roles).toHaveLength(7);
    for (const role of roles) expect(senders, role).toContain(`${role}.RoleId`);
    const relays = policy.filter((entry) => 'relay' in entry).map((entry) => entry.sender);
    const own = [jobs.worker, jobs.sweeper, jobs.admin].map((fn) => `${roleIdOf(fn.role as iam.Role)}.RoleId`);
    expect(relays.sort()).toEqual([...own, `${roleIdOf(jobs.schedules?.tickRole as iam.Role)}.RoleId`].sort());
  });
});

describe('a tag-scoped producer: the tenant IAM enforces is the tenant the worker believes', () => {
  const trustOf = (role: iam.Role) =>
    json.Resources[roleIdOf(role)]?.Properties?.AssumeRolePolicyDocument as {
      Statement: Array<Record<string, unknown>>;
    };

  it('its trust policy refuses a session without the tag as a session tag, or named other than the tag', () => {
    const denies = trustOf(child('BrokeredProducer')).Statement.filter((statement) => statement.Effect === 'Deny');
    expect(denies).toEqual([
      expect.objectContaining({
        Principal: '*',
        Condition: { Null: { 'aws:RequestTag/tenant': 'true' } },
      }),
      expect.objectContaining({
        Principal: '*',
        Condition: { StringNotEquals: { 'sts:RoleSessionName': `\${aws:RequestTag/tenant}` } },
      }),
    ]);
    for (const statement of denies) {
      expect(statement.Action).toEqual(['sts:AssumeRole', 'sts:AssumeRoleWithSAML', 'sts:AssumeRoleWithWebIdentity']);
    }
    // A tenant-id producer's trust policy is left as it was.
    expect(trustOf(child('AcmeProducer')).Statement.some((statement) => statement.Effect === 'Deny')).toBe(false);
  });

  it('a principal whose trust policy the construct cannot write fails unless told it is bound', () => {
    const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    const other = new Stack(app, 'Imported');
    const queue = new FencedJobQueue(other, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY });
    const imported = iam.Role.fromRoleArn(other, 'Broker', 'arn:aws:iam::123456789012:role/broker');
    const tenant = { principalTag: 'tenant' };
    expect(() => queue.grantSendJobs(imported, { tenant, senderId: 'AROAEXAMPLEBROKER000' })).toThrow(
      /sessionBindingStatements\('tenant'\)/,
    );
    expect(() =>
      queue.grantSendJobs(imported, { tenant, senderId: 'AROAEXAMPLEBROKER000', sessionNameBound: true }),
    ).not.toThrow();
  });
});
