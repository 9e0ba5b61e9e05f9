import { App, CfnParameter, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';
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
