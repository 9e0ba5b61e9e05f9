import { App, CfnParameter, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';
import { EnvironmentVariable } from '../../lib/config.js';
import {
  AUDIT_PARTITION,
  QUARANTINE_PARTITION_PREFIX,
  SWEEPER_PARTITION,
  tenantPartitionKeys,
} from '../../lib/store/table.js';
import { conditionMatches, type RequestContext } from './support/iam-conditions.js';
import {
  logicalIdOf,
  type Permission,
  permissionsOfRole,
  render,
  type Template as TemplateJson,
} from './support/template-queries.js';

/** Every partition key no tenant may reach: the audit log, the sweeper's cursor, quarantine records. */
const GLOBAL_PARTITIONS = [AUDIT_PARTITION, SWEEPER_PARTITION, `${QUARANTINE_PARTITION_PREFIX}message-1`];

let stack: Stack;
let jobs: FencedJobQueue;
let json: TemplateJson;

beforeAll(() => {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  stack = new Stack(app, 'Tenancy');
  jobs = new FencedJobQueue(stack, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY });
  const role = (id: string) => new iam.Role(stack, id, { assumedBy: new iam.AccountRootPrincipal() });
  jobs.grantTenantScopedAccess(role('AcmeReader'), { tenantId: 'acme' });
  // acme's producer: sends jobs and reads its own items, like a tenant's service would.
  const acmeProducer = role('AcmeProducer');
  jobs.grantSendJobs(acmeProducer, { tenant: { tenantId: 'acme' } });
  jobs.grantTenantScopedAccess(acmeProducer, { tenantId: 'acme' });
  jobs.grantSendJobs(role('TrustedApi'));
  jobs.grantTenantScopedAccess(
    role('TaggedReader'),
    { principalTag: 'tenant' },
    {
      jobsTableActions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
    },
  );
  json = Template.fromStack(stack).toJSON() as TemplateJson;
});

const permissionsOf = (id: string): Permission[] =>
  permissionsOfRole(json, logicalIdOf(stack, stack.node.findChild(id) as iam.Role));

/** True when some Allow statement of the role applies to `action` on partition `key` for this principal. */
function allowed(permissions: Permission[], action: string, key: string, tags: RequestContext['principalTags']) {
  return permissions.some(
    (entry) =>
      entry.action === action && conditionMatches(entry.condition, { principalTags: tags, leadingKeys: [key] }),
  );
}

describe('tenant-scoped statements: an empty or missing tag opens nothing', () => {
  it('a tag scope requires the tag to be present and non-empty, beside the LeadingKeys pattern', () => {
    for (const entry of permissionsOf('TaggedReader')) {
      expect(entry.condition).toMatchObject({ StringLike: { 'aws:PrincipalTag/tenant': '?*' } });
    }
  });

  it.each([
    ['an empty tag', { tenant: '' }],
    ['no tag at all', {}],
  ])('with %s the principal reaches no partition at all, global or tenant', (_name, tags) => {
    const permissions = permissionsOf('TaggedReader');
    for (const action of ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem']) {
      for (const key of [...GLOBAL_PARTITIONS, ...tenantPartitionKeys('acme'), '#1']) {
        expect(allowed(permissions, action, key, tags), `${action} on ${key}`).toBe(false);
      }
    }
  });

  it('with tag acme the principal reaches every bucket of acme, no other tenant and no global partition', () => {
    const permissions = permissionsOf('TaggedReader');
    const acme = { tenant: 'acme' };
    expect(tenantPartitionKeys('acme').every((key) => allowed(permissions, 'dynamodb:Query', key, acme))).toBe(true);
    for (const key of [...GLOBAL_PARTITIONS, ...tenantPartitionKeys('acme2'), ...tenantPartitionKeys('globex')]) {
      expect(allowed(permissions, 'dynamodb:Query', key, acme), key).toBe(false);
    }
  });

  it('every statement in the stack that confines by LeadingKeys admits no global partition, whatever the tags', () => {
    const confined = Object.values(json.Resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy')
      .flatMap(
        (resource) =>
          (resource.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> } | undefined)
            ?.Statement ?? [],
      )
      .filter(
        (statement) =>
          statement.Effect === 'Allow' && JSON.stringify(statement.Condition ?? {}).includes('LeadingKeys'),
      )
      .filter((statement) => !JSON.stringify(statement.Condition).includes(AUDIT_PARTITION));
    expect(confined.length).toBeGreaterThan(0);
    for (const statement of confined) {
      for (const tags of [{ tenant: '' }, {}, { tenant: 'acme' }] as Array<Record<string, string>>) {
        for (const key of GLOBAL_PARTITIONS) {
          expect(conditionMatches(statement.Condition, { principalTags: tags, leadingKeys: [key] })).toBe(false);
        }
      }
    }
  });

  it('a tenant id that is only known at deploy time is refused (it could be empty there)', () => {
    const grantee = new iam.Role(stack, 'Later', { assumedBy: new iam.AccountRootPrincipal() });
    const deployTime = new CfnParameter(stack, 'TenantParameter').valueAsString;
    expect(() => jobs.grantTenantScopedAccess(grantee, { tenantId: deployTime })).toThrow(/literal/);
  });
});

describe("tenant-bound production: acme's producer reaches nothing of globex through IAM, and the worker knows whom to refuse", () => {
  const bucketOf = (tenantId: string) => tenantPartitionKeys(tenantId)[3] as string;

  it("grantSendJobs with a tenant confines the payload PutItem to the tenant's keys: no unconditioned DynamoDB grant is left", () => {
    const permissions = permissionsOf('AcmeProducer').filter((entry) => entry.action.startsWith('dynamodb:'));
    expect(permissions.length).toBeGreaterThan(0);
    // Every grant is confined to acme's keys, except the one read of the fence epoch row a row-first send needs.
    const epochRead = { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['#settings'] } };
    const isEpochRead = (entry: { condition?: unknown }) =>
      JSON.stringify(entry.condition) === JSON.stringify(epochRead);
    expect(permissions.filter(isEpochRead).map((entry) => entry.action)).toEqual(['dynamodb:GetItem']);
    for (const entry of permissions.filter((candidate) => !isEpochRead(candidate))) {
      expect(entry.condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['acme#*'] } });
    }
  });

  it.each(['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'])(
    "%s: acme's producer may act on acme's keys only, never globex's or a global partition",
    (action) => {
      const permissions = permissionsOf('AcmeProducer');
      const mayOnAcme = ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:Query'].includes(action);
      expect(allowed(permissions, action, bucketOf('acme'), {})).toBe(mayOnAcme);
      for (const key of [bucketOf('globex'), ...tenantPartitionKeys('acme2'), ...GLOBAL_PARTITIONS]) {
        expect(allowed(permissions, action, key, {}), key).toBe(false);
      }
    },
  );

  it("grantSendJobs grants exactly the jobs-table PutItem a delayed send's row needs: a tenant's own keys, a trusted producer's tenant keys, never a global partition", () => {
    const jobsTable = `${logicalIdOf(stack, jobs.jobsTable)}.Arn`;
    const rowWrites = (id: string) =>
      permissionsOf(id).filter((entry) => entry.resource === jobsTable && entry.action !== 'dynamodb:GetItem');
    const trusted = rowWrites('TrustedApi');
    const tenant = permissionsOf('AcmeProducer').filter(
      (entry) => entry.resource === jobsTable && entry.action === 'dynamodb:PutItem',
    );

    expect(trusted.map((entry) => entry.action)).toEqual(['dynamodb:PutItem']);
    expect(allowed(trusted, 'dynamodb:PutItem', bucketOf('globex'), {})).toBe(true);
    expect(allowed(tenant, 'dynamodb:PutItem', bucketOf('acme'), {})).toBe(true);
    for (const key of GLOBAL_PARTITIONS) {
      expect(allowed(trusted, 'dynamodb:PutItem', key, {}), key).toBe(false);
      expect(allowed(tenant, 'dynamodb:PutItem', key, {}), key).toBe(false);
    }
    expect(allowed(tenant, 'dynamodb:PutItem', bucketOf('globex'), {})).toBe(false);
    expect(permissionsOf('TrustedApi').some((entry) => entry.resource === jobsTable && !entry.condition)).toBe(false);
  });

  it('the worker gets the sender policy: acme for its producer, every tenant for the trusted API, relays for the worker, sweeper and admin', () => {
    const worker = json.Resources[logicalIdOf(stack, jobs.worker)]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    const policy = render(worker.Variables[EnvironmentVariable.senderTenants]);
    const roleIdOf = (id: string) => `${logicalIdOf(stack, stack.node.findChild(id) as iam.Role)}.RoleId`;
    expect(policy).toContain(`{"sender":"${roleIdOf('AcmeProducer')}","tenants":["acme"]}`);
    expect(policy).toContain(`{"sender":"${roleIdOf('TrustedApi')}","tenants":"*"}`);
    expect(policy).toContain(`"relay":true`);
    const relayOf = (fn: { role?: iam.IRole }) =>
      `{"sender":"${logicalIdOf(stack, fn.role as iam.Role)}.RoleId","relay":true}`;
    for (const fn of [jobs.worker, jobs.sweeper, jobs.admin]) expect(policy).toContain(relayOf(fn));
    expect(policy.match(/"relay":true/g)).toHaveLength(3);
  });

  it('with trusted producers only there is nothing to check: the variable is empty', () => {
    const alone = new Stack(new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } }), 'Trusted');
    const trusted = new FencedJobQueue(alone, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY });
    trusted.grantSendJobs(new iam.Role(alone, 'Api', { assumedBy: new iam.AccountRootPrincipal() }));
    const template = Template.fromStack(alone).toJSON() as TemplateJson;
    const worker = template.Resources[logicalIdOf(alone, trusted.worker)]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(worker.Variables[EnvironmentVariable.senderTenants]).toBe('');
  });

  it('a producer whose SenderId is unknown fails the synthesis once any producer is tenant-scoped (it would be refused)', () => {
    const mixed = new Stack(new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } }), 'Mixed');
    const queue = new FencedJobQueue(mixed, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY });
    queue.grantSendJobs(iam.Role.fromRoleArn(mixed, 'Imported', 'arn:aws:iam::123456789012:role/elsewhere'));
    queue.grantSendJobs(new iam.Role(mixed, 'Acme', { assumedBy: new iam.AccountRootPrincipal() }), {
      tenant: { tenantId: 'acme' },
    });
    expect(() => Template.fromStack(mixed)).toThrow(/SenderId of .*is not known/);
  });
});
