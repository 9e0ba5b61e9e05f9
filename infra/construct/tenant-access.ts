import { Token } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { tenantIdSchema } from '../../lib/identity.js';
import { tenantBucketKey } from '../../lib/store/index.js';

/** Which tenant a principal is confined to: a fixed tenant id, or the value of one of its principal tags. */
type TenantScope = { tenantId: string } | { principalTag: string };

/**
 * Item actions that always carry a partition key, so `dynamodb:LeadingKeys` is always present. Scan and the
 * batch/PartiQL actions are excluded on purpose: `ForAllValues` is vacuously true when the key is absent.
 */
const TENANT_SCOPABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
] as const;

/** One of the actions above. */
type TenantScopedAction = (typeof TENANT_SCOPABLE_ACTIONS)[number];

/** What to grant on each table; defaults: read own work items, store and read own payload bodies. */
interface TenantAccessOptions {
  jobsTableActions?: TenantScopedAction[];
  payloadsTableActions?: TenantScopedAction[];
}

const DEFAULT_JOBS_ACTIONS: TenantScopedAction[] = ['dynamodb:GetItem', 'dynamodb:Query'];
const DEFAULT_PAYLOADS_ACTIONS: TenantScopedAction[] = ['dynamodb:GetItem', 'dynamodb:PutItem'];

/**
 * The partition-key pattern a scope allows: `tenant#*`, every hash bucket of the tenant (lib/store/table.ts
 * tenantPartitionKeys), for a literal tenant id (validated; a token is refused) or a principal-tag variable. Tenant ids cannot
 * contain `#`, so the pattern matches no other tenant's keys (`acme#*` never matches `acme2#3`).
 */
function leadingKeyPattern(scope: TenantScope): string {
  if ('tenantId' in scope) {
    // A deploy-time value (parameter, import) could be empty there, and `#*` matches the global partitions.
    if (Token.isUnresolved(scope.tenantId)) throw new Error('a tenant id must be a literal known at synth time');
    tenantIdSchema.parse(scope.tenantId);
    return tenantBucketKey(scope.tenantId, '*');
  }
  if (!/^[\w.:/=+\-@]{1,128}$/.test(scope.principalTag)) throw new Error(`invalid tag key ${scope.principalTag}`);
  return tenantBucketKey(`\${aws:PrincipalTag/${scope.principalTag}}`, '*');
}

/**
 * The conditions of every tenant-scoped statement. For a tag scope, the tag must also be present and non-empty
 * (`StringLike '?*'`): an empty tag would turn the pattern into `#*`, which matches the global partitions
 * (`#audit`, `#sweeper`, `#quarantine#…`); a missing tag fails the `StringLike` (IAM: absent key ▶ no match).
 */
function tenantConditions(scope: TenantScope): Record<string, Record<string, unknown>> {
  const leadingKeys = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [leadingKeyPattern(scope)] } };
  if ('tenantId' in scope) return leadingKeys;
  return { ...leadingKeys, StringLike: { [`aws:PrincipalTag/${scope.principalTag}`]: NON_EMPTY } };
}

/** IAM StringLike pattern of a value with at least one character. */
const NON_EMPTY = '?*';

function checkActions(actions: TenantScopedAction[]): void {
  for (const action of actions) {
    if (!(TENANT_SCOPABLE_ACTIONS as readonly string[]).includes(action)) {
      throw new Error(`${action} cannot be confined to one tenant by dynamodb:LeadingKeys`);
    }
  }
}

/**
 * Grants a tenant-scoped principal access to its own tenant's items only: every statement carries
 * `ForAllValues:StringLike { dynamodb:LeadingKeys: ['tenant#*'] }` (a tag scope also requires the tag to be
 * non-empty, see tenantConditions), and the partition key of work items and
 * payloads is `tenant#bucket` (lib/store/table.ts workItemKey/payloadKey). Base tables only: index partition keys
 * are not tenant keys, so index queries are never granted here.
 * @example
 * grantTenantScopedAccess(acmeRole, { jobsTable, payloadsTable }, { tenantId: 'acme' });
 * grantTenantScopedAccess(producerRole, { jobsTable, payloadsTable }, { principalTag: 'tenant' });
 */
function grantTenantScopedAccess(
  grantee: iam.IGrantable,
  tables: { jobsTable: dynamodb.ITable; payloadsTable: dynamodb.ITable },
  scope: TenantScope,
  options: TenantAccessOptions = {},
): iam.Grant[] {
  const conditions = tenantConditions(scope);
  const plan: Array<[dynamodb.ITable, TenantScopedAction[]]> = [
    [tables.jobsTable, options.jobsTableActions ?? DEFAULT_JOBS_ACTIONS],
    [tables.payloadsTable, options.payloadsTableActions ?? DEFAULT_PAYLOADS_ACTIONS],
  ];
  return plan
    .filter(([, actions]) => actions.length > 0)
    .map(([table, actions]) => {
      checkActions(actions);
      return iam.Grant.addToPrincipal({
        grantee,
        actions: [...actions],
        resourceArns: [table.tableArn],
        conditions,
      });
    });
}

export {
  grantTenantScopedAccess,
  leadingKeyPattern,
  TENANT_SCOPABLE_ACTIONS,
  type TenantAccessOptions,
  type TenantScope,
  type TenantScopedAction,
  tenantConditions,
};
