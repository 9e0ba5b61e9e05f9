import { rmSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template as CdkTemplate } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY, type LeasefenceStack } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext, type SynthResult, synthLeasefenceApp } from '../../infra/app/synth.js';
import { FencedJobQueue } from '../../infra/construct/index.js';
import { SLOT_PARTITION_PREFIX } from '../../lib/store/flow-control/slot-requests.js';
import { AUDIT_PARTITION, approvalRecordKey, SWEEPER_PARTITION, workItemKey } from '../../lib/store/table.js';
import { SETTINGS_PARTITION } from '../../lib/store/work-items/fence-epoch.js';
import { conditionMatches } from './support/iam-conditions.js';
import {
  denialsOfFunction,
  logicalIdOf,
  type Permission,
  permissionsOfFunction,
  resourcesOfType,
  type Template,
} from './support/template-queries.js';

let stack: LeasefenceStack;
let template: Template;
let ids: { jobs: string; payloads: string; examples: string; queue: string; dlq: string };
let perms: { worker: Permission[]; sweeper: Permission[]; admin: Permission[] };
let denials: { worker: Permission[]; sweeper: Permission[]; admin: Permission[] };

let synth: SynthResult;

beforeAll(() => {
  synth = synthLeasefenceApp({
    stackProps: { alarmEmail: 'ops@example.com' },
    checks: false, // cdk-nag: nag.test.ts and the `cdk synth` case in synth.test.ts
    bundling: false, // bundles: synth.test.ts
  });
  stack = synth.stack;
  template = synth.template as Template;
  const { jobs } = stack;
  ids = {
    jobs: logicalIdOf(stack, jobs.jobsTable),
    payloads: logicalIdOf(stack, jobs.payloadsTable),
    examples: logicalIdOf(stack, stack.examplesTable),
    queue: logicalIdOf(stack, jobs.queue),
    dlq: logicalIdOf(stack, jobs.deadLetterQueue),
  };
  perms = {
    worker: permissionsOfFunction(stack, template, jobs.worker),
    sweeper: permissionsOfFunction(stack, template, jobs.sweeper),
    admin: permissionsOfFunction(stack, template, jobs.admin),
  };
  denials = {
    worker: denialsOfFunction(stack, template, jobs.worker),
    sweeper: denialsOfFunction(stack, template, jobs.sweeper),
    admin: denialsOfFunction(stack, template, jobs.admin),
  };
});

afterAll(() => rmSync(synth.outdir, { recursive: true, force: true }));

const logs = (fn: string) => [`logs:CreateLogStream on Jobs${fn}Logs.Arn`, `logs:PutLogEvents on Jobs${fn}Logs.Arn`];

const SLOT_CONDITION = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SLOT_PARTITION_PREFIX}*`] } };
const SLOTS_ONLY = ` if ${JSON.stringify(SLOT_CONDITION)}`;
const AUDIT_ONLY = ` if ${JSON.stringify({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [AUDIT_PARTITION] } })}`;

/**
 * Every (action, resource, condition) the role holds, with logical-id prefixes replaced so expectations read
 * like the IAM matrix in the docs; a condition is part of the line, so a dropped condition fails the match.
 */
function named(permissions: Permission[]): string[] {
  const lines = permissions.map(
    (entry) => `${entry.action} on ${entry.resource}${entry.condition ? ` if ${JSON.stringify(entry.condition)}` : ''}`,
  );
  return [...new Set(lines)].sort().map((line) =>
    line
      .replace(ids.jobs, 'JobsTable')
      .replace(ids.payloads, 'PayloadsTable')
      .replace(ids.examples, 'ExamplesTable')
      .replace(ids.queue, 'JobsQueue')
      .replace(ids.dlq, 'DeadLetterQueue')
      .replace(/Jobs(Worker|Sweeper|Admin)Logs[0-9A-F]{8}/, 'Jobs$1Logs')
      .replace(/JobsIdentifierKey[0-9A-F]{8}/, 'IdentifierKeySecret'),
  );
}

describe('IAM matrix: each function has exactly the actions it uses', () => {
  it('worker: work items, payload reads and successor bodies, example records (grantWorkerRecordAccess), queue consumption, retry and successor wake-ups, own logs', () => {
    expect(named(perms.worker)).toEqual(
      [
        'dynamodb:ConditionCheckItem on ExamplesTable.Arn',
        'dynamodb:GetItem on ExamplesTable.Arn',
        'dynamodb:PutItem on ExamplesTable.Arn',
        'dynamodb:UpdateItem on ExamplesTable.Arn',
        'dynamodb:ConditionCheckItem on JobsTable.Arn',
        'dynamodb:GetItem on JobsTable.Arn',
        'dynamodb:GetItem on PayloadsTable.Arn',
        'dynamodb:PutItem on JobsTable.Arn',
        'dynamodb:PutItem on PayloadsTable.Arn',
        'dynamodb:UpdateItem on JobsTable.Arn',
        // Concurrency slots (store.slots): release, waiter removal and their reads, only in `#slot#…` partitions.
        `dynamodb:DeleteItem on JobsTable.Arn${SLOTS_ONLY}`,
        `dynamodb:Query on JobsTable.Arn${SLOTS_ONLY}`,
        // PayloadStore.keepUntil: a gated job's body outlives its approval window.
        'dynamodb:UpdateItem on PayloadsTable.Arn',
        ...logs('Worker'),
        'secretsmanager:GetSecretValue on IdentifierKeySecret',
        'sqs:ChangeMessageVisibility on JobsQueue.Arn',
        'sqs:DeleteMessage on JobsQueue.Arn',
        'sqs:GetQueueAttributes on JobsQueue.Arn',
        'sqs:ReceiveMessage on JobsQueue.Arn',
        'sqs:SendMessage on JobsQueue.Arn',
      ].sort(),
    );
  });

  it('sweeper: deadline and parked-by-state indexes, work-item updates, re-signal', () => {
    expect(named(perms.sweeper)).toEqual(
      [
        'dynamodb:GetItem on JobsTable.Arn',
        'dynamodb:Query on JobsTable.Arn/index/byDeadline',
        'dynamodb:Query on JobsTable.Arn/index/parkedByState',
        'dynamodb:UpdateItem on JobsTable.Arn',
        ...logs('Sweeper'),
        'sqs:SendMessage on JobsQueue.Arn',
      ].sort(),
    );
  });

  it('admin: job indexes, tenant listings, work items (no PutItem), audit records only in their partition, payload erase, DLQ redrive', () => {
    expect(named(perms.admin)).toEqual(
      [
        'dynamodb:GetItem on JobsTable.Arn',
        `dynamodb:PutItem on JobsTable.Arn${AUDIT_ONLY}`,
        'dynamodb:Query on JobsTable.Arn/index/byDeadline',
        'dynamodb:Query on JobsTable.Arn/index/parkedByState',
        'dynamodb:Query on JobsTable.Arn',
        'dynamodb:Query on JobsTable.Arn/index/parkedByTenant',
        'dynamodb:Query on PayloadsTable.Arn',
        'dynamodb:Scan on JobsTable.Arn',
        'dynamodb:UpdateItem on JobsTable.Arn',
        'dynamodb:UpdateItem on PayloadsTable.Arn',
        ...logs('Admin'),
        'secretsmanager:GetSecretValue on IdentifierKeySecret',
        'sqs:ChangeMessageVisibility on DeadLetterQueue.Arn',
        'sqs:DeleteMessage on DeadLetterQueue.Arn',
        'sqs:GetQueueAttributes on DeadLetterQueue.Arn',
        'sqs:ReceiveMessage on DeadLetterQueue.Arn',
        'sqs:SendMessage on JobsQueue.Arn',
      ].sort(),
    );
  });
});

/** Whether IAM lets the role do `action` on the jobs table in partition `key`: some Allow applies and no Deny does. */
function mayWrite(role: 'worker' | 'sweeper' | 'admin', action: string, key: string): boolean {
  const applies = (entry: Permission) =>
    entry.action === action &&
    entry.resource === `${ids.jobs}.Arn` &&
    conditionMatches(entry.condition, { leadingKeys: [key] });
  return perms[role].some(applies) && !denials[role].some(applies);
}

describe('IAM: the audit log and the sweeper cursor are out of reach of the roles that do not own them', () => {
  const deny = (partitions: string[]) =>
    ` if ${JSON.stringify({ 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': partitions } })}`;

  it('each role carries exactly these explicit denials', () => {
    const approvals = { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['#approval#*'] } };
    const decided = {
      'ForAnyValue:StringEquals': { 'dynamodb:Attributes': ['decision', 'decidedAt', 'actor', 'approverId'] },
    };
    expect(named(denials.worker)).toEqual([
      `dynamodb:PutItem on JobsTable.Arn${deny([AUDIT_PARTITION, SWEEPER_PARTITION, SETTINGS_PARTITION])}`,
      `dynamodb:PutItem on JobsTable.Arn if ${JSON.stringify({ ...approvals, ...decided })}`,
      `dynamodb:UpdateItem on JobsTable.Arn${deny([AUDIT_PARTITION, SWEEPER_PARTITION, SETTINGS_PARTITION])}`,
      `dynamodb:UpdateItem on JobsTable.Arn if ${JSON.stringify(approvals)}`,
    ]);
    expect(named(denials.sweeper)).toEqual([
      `dynamodb:UpdateItem on JobsTable.Arn${deny([AUDIT_PARTITION, SETTINGS_PARTITION])}`,
      `dynamodb:UpdateItem on JobsTable.Arn if ${JSON.stringify(approvals)}`,
    ]);
    expect(named(denials.admin)).toEqual([
      `dynamodb:UpdateItem on JobsTable.Arn${deny([AUDIT_PARTITION, SWEEPER_PARTITION])}`,
    ]);
  });

  it.each([
    ['worker', 'dynamodb:PutItem', AUDIT_PARTITION, false],
    ['worker', 'dynamodb:UpdateItem', AUDIT_PARTITION, false],
    ['worker', 'dynamodb:UpdateItem', SWEEPER_PARTITION, false],
    ['worker', 'dynamodb:UpdateItem', SETTINGS_PARTITION, false],
    ['worker', 'dynamodb:PutItem', SETTINGS_PARTITION, false],
    ['sweeper', 'dynamodb:UpdateItem', SETTINGS_PARTITION, false],
    ['admin', 'dynamodb:UpdateItem', SETTINGS_PARTITION, true],
    ['worker', 'dynamodb:PutItem', workItemKey({ tenantId: 'acme', operationId: 'op-1' }).pk, true],
    ['worker', 'dynamodb:PutItem', '#quarantine#message-1', true],
    ['sweeper', 'dynamodb:UpdateItem', AUDIT_PARTITION, false],
    ['sweeper', 'dynamodb:UpdateItem', SWEEPER_PARTITION, true],
    ['sweeper', 'dynamodb:UpdateItem', workItemKey({ tenantId: 'acme', operationId: 'op-1' }).pk, true],
    ['admin', 'dynamodb:UpdateItem', AUDIT_PARTITION, false],
    ['admin', 'dynamodb:UpdateItem', SWEEPER_PARTITION, false],
    ['admin', 'dynamodb:PutItem', AUDIT_PARTITION, true],
    ['admin', 'dynamodb:PutItem', workItemKey({ tenantId: 'acme', operationId: 'op-1' }).pk, false],
    ['admin', 'dynamodb:UpdateItem', workItemKey({ tenantId: 'acme', operationId: 'op-1' }).pk, true],
    // Approval records: only the admin decides one (UpdateItem); the worker opens them (PutItem, undecided only).
    ['admin', 'dynamodb:UpdateItem', approvalRecordKey({ tenantId: 'acme', operationId: 'op-1' }).pk, true],
    ['worker', 'dynamodb:UpdateItem', approvalRecordKey({ tenantId: 'acme', operationId: 'op-1' }).pk, false],
    ['sweeper', 'dynamodb:UpdateItem', approvalRecordKey({ tenantId: 'acme', operationId: 'op-1' }).pk, false],
    ['admin', 'dynamodb:PutItem', approvalRecordKey({ tenantId: 'acme', operationId: 'op-1' }).pk, false],
  ] as const)('%s %s in %s ▶ allowed: %s', (role, action, key, expected) => {
    expect(mayWrite(role, action, key)).toBe(expected);
  });
});

describe('IAM: conditions and forbidden permissions', () => {
  it('the admin puts on the jobs table only inside the audit partition, lists with Query, scans only to raise fences', () => {
    const puts = perms.admin.filter(
      (entry) => entry.action === 'dynamodb:PutItem' && entry.resource === `${ids.jobs}.Arn`,
    );
    expect(puts.map((entry) => entry.condition)).toEqual([
      { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [AUDIT_PARTITION] } },
    ]);
    // The one Scan: raise-fences after a restore of the jobs table alone walks every work item (never a hot path).
    expect(perms.admin.filter((entry) => entry.action === 'dynamodb:Scan').map((entry) => entry.resource)).toEqual([
      `${ids.jobs}.Arn`,
    ]);
    const slots = perms.worker.filter(
      (entry) => entry.action === 'dynamodb:DeleteItem' || entry.action === 'dynamodb:Query',
    );
    expect(slots.map((entry) => entry.condition)).toEqual([SLOT_CONDITION, SLOT_CONDITION]);
    const otherConditioned = [...perms.worker, ...perms.sweeper, ...perms.admin].filter(
      (entry) => entry.condition !== undefined && !puts.includes(entry) && !slots.includes(entry),
    );
    expect(otherConditioned).toEqual([]);
  });

  it('the worker deletes and lists only concurrency slots and sends only to its own queue (retry and successor wake-ups), never to the DLQ', () => {
    const outsideSlots = perms.worker.filter((entry) => entry.condition === undefined).map((entry) => entry.action);
    expect(outsideSlots).not.toContain('dynamodb:DeleteItem');
    expect(outsideSlots).not.toContain('dynamodb:Query');
    const actions = perms.worker.map((entry) => entry.action);
    expect(actions).not.toContain('dynamodb:BatchWriteItem');
    expect(actions).not.toContain('dynamodb:Scan');
    expect(named(perms.worker.filter((entry) => entry.action.startsWith('sqs:Send')))).toEqual([
      'sqs:SendMessage on JobsQueue.Arn',
    ]);
    expect(perms.worker.filter((entry) => entry.resource.includes(ids.dlq))).toEqual([]);
  });

  it('the sweeper cannot reach the payloads table, the example records or the DLQ, and cannot delete or put', () => {
    expect(perms.sweeper.filter((entry) => entry.resource.includes(ids.payloads))).toEqual([]);
    expect(perms.sweeper.filter((entry) => entry.resource.includes(ids.examples))).toEqual([]);
    expect(perms.sweeper.filter((entry) => entry.resource.includes(ids.dlq))).toEqual([]);
    const actions = perms.sweeper.map((entry) => entry.action);
    expect(actions).not.toContain('dynamodb:DeleteItem');
    expect(actions).not.toContain('dynamodb:PutItem');
  });

  it('the admin only sends to the jobs queue (redrive), never consumes it, and never touches job records', () => {
    expect(perms.admin.filter((entry) => entry.resource.includes(ids.examples))).toEqual([]);
    const onQueue = perms.admin.filter((entry) => entry.resource === `${ids.queue}.Arn`).map((entry) => entry.action);
    expect(onQueue).toEqual(['sqs:SendMessage']);
    expect(perms.admin.filter((entry) => entry.action === 'sqs:ReceiveMessage').map((entry) => entry.resource)).toEqual(
      [`${ids.dlq}.Arn`],
    );
    // Erasure turns a body into a tombstone (UpdateItem): the admin deletes nothing.
    expect(perms.admin.filter((entry) => entry.action === 'dynamodb:DeleteItem')).toEqual([]);
  });

  it('no IAM policy in the stack has a wildcard action or a `*` resource', () => {
    for (const [id, policy] of resourcesOfType(template, 'AWS::IAM::Policy')) {
      const document = policy.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> };
      for (const statement of document.Statement) {
        for (const action of [statement.Action].flat()) expect(String(action), id).not.toContain('*');
        for (const resource of [statement.Resource].flat()) expect(resource, id).not.toBe('*');
      }
    }
  });

  it('no role carries a managed policy or an inline policy outside the audited ones', () => {
    for (const [id, role] of resourcesOfType(template, 'AWS::IAM::Role')) {
      expect(role.Properties?.ManagedPolicyArns, id).toBeUndefined();
      expect(role.Properties?.Policies, id).toBeUndefined();
      expect(JSON.stringify(role.Properties?.AssumeRolePolicyDocument)).toContain('lambda.amazonaws.com');
    }
    expect(resourcesOfType(template, 'AWS::IAM::ManagedPolicy')).toEqual([]);
  });

  it('the only `*` resource is the alarm key policy, where `*` means "this key"', () => {
    const wildcards = Object.entries(template.Resources)
      .filter(([, resource]) => JSON.stringify(resource.Properties ?? {}).includes('"Resource":"*"'))
      .map(([, resource]) => resource.Type);
    expect(wildcards).toEqual(['AWS::KMS::Key']);
  });

  it('the admin Function URL uses AWS_IAM and nothing grants public invocation', () => {
    const urls = resourcesOfType(template, 'AWS::Lambda::Url');
    expect(urls).toHaveLength(1);
    expect(urls[0]?.[1].Properties?.AuthType).toBe('AWS_IAM');
    expect(JSON.stringify(urls[0]?.[1].Properties?.TargetFunctionArn)).toContain(logicalIdOf(stack, stack.jobs.admin));
    for (const [id, permission] of resourcesOfType(template, 'AWS::Lambda::Permission')) {
      expect(permission.Properties?.FunctionUrlAuthType, id).not.toBe('NONE');
      expect(permission.Properties?.Principal, id).not.toBe('*');
    }
  });
});

describe("IAM: grantShadowWrites gives a team's existing consumer only its shadow writes", () => {
  function teamStack(withKey: boolean) {
    const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    const team = new Stack(app, withKey ? 'TeamKeyed' : 'Team');
    const jobs = new FencedJobQueue(team, 'Jobs', {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      ...(withKey ? { encryptionKey: new kms.Key(team, 'Key', { enableKeyRotation: true }) } : {}),
    });
    const consumer = new lambda.Function(team, 'RefundConsumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    });
    jobs.grantShadowWrites(consumer);
    const json = CdkTemplate.fromStack(team).toJSON() as Template;
    return { team, jobs, consumer, json };
  }

  it('UpdateItem on the jobs table in tenant partitions only, nothing else, and the table variables', () => {
    const { team, jobs, consumer, json } = teamStack(false);
    const granted = permissionsOfFunction(team, json, consumer);
    const jobsTable = logicalIdOf(team, jobs.jobsTable);
    expect(granted).toEqual([
      {
        action: 'dynamodb:UpdateItem',
        resource: `${jobsTable}.Arn`,
        condition: { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['#*'] } },
      },
    ]);
    // The condition refuses the global partitions: the audit log, the sweeper cursor, the fence settings.
    const condition = granted[0]?.condition ?? {};
    for (const partition of [AUDIT_PARTITION, SWEEPER_PARTITION, SETTINGS_PARTITION])
      expect(conditionMatches(condition, { leadingKeys: [partition] }), partition).toBe(false);
    expect(
      conditionMatches(condition, {
        leadingKeys: [workItemKey({ tenantId: 'acme', operationId: 'r-1' }).pk],
      }),
    ).toBe(true);
    const environment = json.Resources[logicalIdOf(team, consumer)]?.Properties?.Environment as
      | { Variables: object }
      | undefined;
    const variables = environment?.Variables;
    expect(variables).toMatchObject({ LEASEFENCE_JOBS_TABLE: { Ref: jobsTable } });
  });

  it('with a customer-managed key, the key through DynamoDB only', () => {
    const { team, consumer, json } = teamStack(true);
    const granted = permissionsOfFunction(team, json, consumer);
    const kmsLines = granted.filter((entry) => entry.action.startsWith('kms:'));
    expect(kmsLines.length).toBeGreaterThan(0);
    for (const entry of kmsLines)
      expect(JSON.stringify(entry.condition)).toMatch(/"kms:ViaService":\[\{"Fn::Join":\["",\["dynamodb\./);
    expect(granted.filter((entry) => !entry.action.startsWith('kms:')).map((entry) => entry.action)).toEqual([
      'dynamodb:UpdateItem',
    ]);
  });
});
