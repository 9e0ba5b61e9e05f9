import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_WORKER_ENTRY } from '../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../infra/app/synth.js';
import { FencedJobQueue, type FencedJobQueueProps, type TenantScopedAction } from '../../infra/construct/index.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { AUDIT_PARTITION, tenantPartitionKeys, workItemKey } from '../../lib/store/table.js';
import {
  permissionLines,
  permissionsOfFunction,
  permissionsOfRole,
  resourcesOfType,
  type Template as TemplateJson,
} from './support/template-queries.js';

/** IAM StringLike on one pattern: `*` matches any run of characters, `?` one, everything else literally. */
function iamLikeMatcher(pattern: string): (value: string) => boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  const regex = new RegExp(`^${source}$`);
  return (value) => regex.test(value);
}

/** A stack without bundling (props and grants only; bundling is covered by synth.test.ts). */
function unbundledStack(): Stack {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, 'Custom');
}

let stack: Stack;
let jobs: FencedJobQueue;
let template: Template;
let json: TemplateJson;
let logical: (construct: { node: { defaultChild?: unknown } }) => string;

beforeAll(() => {
  stack = unbundledStack();
  jobs = new FencedJobQueue(stack, 'Billing', {
    workerEntry: EXAMPLE_WORKER_ENTRY,
    workerTimeout: Duration.minutes(2),
    workerMemorySize: 1024,
    batchSize: 25,
    maxBatchingWindow: Duration.seconds(5),
    maxConcurrency: 4,
    maxReceiveCount: 3,
    sweeperSchedule: events.Schedule.rate(Duration.minutes(5)),
    deadlineShards: 16,
    payloadRetention: Duration.days(7),
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    serviceName: 'billing-jobs',
    alarmThresholds: { takeovers: 20, rateLimitDeferrals: 7, rateLimitWaitSeconds: 120 },
    workerEnvironment: { LEDGER_TABLE: 'ledger' },
  });
  const ledger = new dynamodb.Table(stack, 'Ledger', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  });
  jobs.grantWorkerRecordAccess(ledger);
  const role = (id: string) => new iam.Role(stack, id, { assumedBy: new iam.AccountRootPrincipal() });
  jobs.grantSendJobs(role('Producer'));
  jobs.grantAdminInvoke(role('Operator'));
  jobs.grantTenantScopedAccess(role('AcmeTenant'), { tenantId: 'acme' });
  jobs.grantTenantScopedAccess(role('TaggedTenant'), { principalTag: 'tenant' }, { jobsTableActions: [] });
  template = Template.fromStack(stack);
  json = template.toJSON() as TemplateJson;
  logical = (construct) => stack.resolve((construct.node.defaultChild as { logicalId: string }).logicalId) as string;
});

const roleId = (id: string) => logical(stack.node.findChild(id) as iam.Role);

describe('FencedJobQueue props', () => {
  it('sizes the worker, its event source and the queue from the props', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 120, MemorySize: 1024 });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 25,
      MaximumBatchingWindowInSeconds: 5,
      ScalingConfig: { MaximumConcurrency: 4 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 6 * 120 + 5,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 3 }),
    });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logical(jobs.sweeper) },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 300,
    });
  });

  it('passes shards, retention, service name and the user environment to the functions', () => {
    expect(jobs.deadlineShards).toBe(16);
    const env = json.Resources[logical(jobs.worker)]?.Properties?.Environment as { Variables: Record<string, string> };
    expect(env.Variables).toMatchObject({
      [EnvironmentVariable.deadlineShards]: '16',
      [EnvironmentVariable.payloadRetentionDays]: '7',
      POWERTOOLS_SERVICE_NAME: 'billing-jobs',
      LEDGER_TABLE: 'ledger',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Takeovers',
      Threshold: 20,
      Dimensions: [{ Name: 'service', Value: 'billing-jobs' }],
    });
    // The provider-budget alarms take their thresholds from the same prop.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'RateLimitDeferred',
      Threshold: 7,
      Dimensions: [{ Name: 'service', Value: 'billing-jobs' }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'RateLimitWaitSeconds',
      Threshold: 120,
      Dimensions: [{ Name: 'service', Value: 'billing-jobs' }],
    });
  });

  it('reserves concurrency (worker from maxConcurrency, sweeper 1, admin 5) and watches a 5-minute sweeper', () => {
    const reserved = (fn: typeof jobs.worker) => json.Resources[logical(fn)]?.Properties?.ReservedConcurrentExecutions;
    expect([reserved(jobs.worker), reserved(jobs.sweeper), reserved(jobs.admin)]).toEqual([4, 1, 5]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Invocations',
      Period: 300,
      EvaluationPeriods: 2,
      TreatMissingData: 'breaching',
    });
  });

  it('takes an explicit worker reservation and the interval of a cron schedule', () => {
    const custom = unbundledStack();
    const queue = new FencedJobQueue(custom, 'Jobs', {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      maxConcurrency: 8,
      workerReservedConcurrency: 20,
      adminReservedConcurrency: 2,
      sweeperSchedule: events.Schedule.cron({ minute: '*/10' }),
      sweeperInterval: Duration.minutes(10),
    });
    const resources = Template.fromStack(custom);
    resources.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 8 } });
    resources.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 20 });
    resources.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 2 });
    resources.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Invocations', Period: 600 });
    resources.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 600,
    });
    expect(queue.encryptionKey).toBeUndefined();
  });

  it('applies the removal policy and deletion protection setting', () => {
    expect(json.Resources[logical(jobs.jobsTable)]).toMatchObject({
      DeletionPolicy: 'Delete',
      Properties: { DeletionProtectionEnabled: false },
    });
    expect(json.Resources[logical(jobs.deadLetterQueue)]?.DeletionPolicy).toBe('Delete');
  });

  it.each<[string, Partial<FencedJobQueueProps>, RegExp]>([
    ['a short visibility timeout', { queueVisibilityTimeout: Duration.seconds(300) }, /below 6 x worker timeout/],
    ['maxConcurrency 1', { maxConcurrency: 1 }, /maxConcurrency/],
    ['a batch above 10 without a window', { batchSize: 20, maxBatchingWindow: Duration.seconds(0) }, /batchSize/],
    [
      'a worker environment overriding a construct variable',
      { workerEnvironment: { LEASEFENCE_JOBS_TABLE: 'x' } },
      /may not override LEASEFENCE_JOBS_TABLE/,
    ],
    ['maxReceiveCount 0', { maxReceiveCount: 0 }, /maxReceiveCount/],
    ['a service name with spaces', { serviceName: 'my jobs' }, /serviceName/],
    [
      'a worker reserved concurrency below the event source maximum',
      { maxConcurrency: 10, workerReservedConcurrency: 5 },
      /workerReservedConcurrency 5 is below maxConcurrency 10/,
    ],
    ['an admin reserved concurrency of 0', { adminReservedConcurrency: 0 }, /adminReservedConcurrency/],
    [
      'a cron sweeper schedule without its interval',
      { sweeperSchedule: events.Schedule.cron({ minute: '*/5' }) },
      /sweeperInterval is required/,
    ],
    ['an empty worker entry', { workerEntry: ' ' }, /workerEntry is required/],
  ])('rejects %s', (_case, props, error) => {
    expect(() => new FencedJobQueue(unbundledStack(), 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY, ...props })).toThrow(
      error,
    );
  });
});

describe('encryptionKey and alarm topic', () => {
  let keyed: Stack;
  let keyedJobs: FencedJobQueue;
  let keyedJson: TemplateJson;
  let keyId: string;

  beforeAll(() => {
    keyed = unbundledStack();
    const key = new kms.Key(keyed, 'JobsKey', { enableKeyRotation: true });
    keyedJobs = new FencedJobQueue(keyed, 'Jobs', {
      workerEntry: EXAMPLE_WORKER_ENTRY,
      encryptionKey: key,
      alarmEmail: 'ops@example.com',
    });
    keyedJobs.grantSendJobs(new iam.Role(keyed, 'Producer', { assumedBy: new iam.AccountRootPrincipal() }));
    keyedJson = Template.fromStack(keyed).toJSON() as TemplateJson;
    keyId = keyed.resolve(key.node.defaultChild && (key.node.defaultChild as kms.CfnKey).logicalId) as string;
  });

  it('one customer-managed key encrypts both tables, both queues and the alarm topic', () => {
    const keyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };
    const of = (type: string) => resourcesOfType(keyedJson, type).map(([, resource]) => resource.Properties);
    expect(of('AWS::DynamoDB::Table').map((table) => table?.SSESpecification)).toEqual([
      { KMSMasterKeyId: keyArn, SSEEnabled: true, SSEType: 'KMS' },
      { KMSMasterKeyId: keyArn, SSEEnabled: true, SSEType: 'KMS' },
    ]);
    expect(of('AWS::SQS::Queue').map((queue) => queue?.KmsMasterKeyId)).toEqual([keyArn, keyArn]);
    expect(of('AWS::SNS::Topic').map((topic) => topic?.KmsMasterKeyId)).toEqual([keyArn]);
    expect(resourcesOfType(keyedJson, 'AWS::KMS::Key').map(([id]) => id)).toEqual([keyId]);
    const policy = JSON.stringify(keyedJson.Resources[keyId]?.Properties?.KeyPolicy);
    expect(policy).toContain('cloudwatch.amazonaws.com');
    expect(policy).toContain('aws:SourceAccount');
  });

  it('every function and the producer may use the key only through DynamoDB, SQS (and the key secret)', () => {
    const via = (...services: string[]) => ({
      'ForAnyValue:StringEquals': {
        'kms:ViaService': services.map((service) => ({
          'Fn::Join': ['', [`${service}.`, { Ref: 'AWS::Region' }, '.amazonaws.com']],
        })),
      },
    });
    const producer = keyed.resolve((keyed.node.findChild('Producer').node.defaultChild as iam.CfnRole).logicalId);
    const holders = [
      [permissionsOfFunction(keyed, keyedJson, keyedJobs.worker), via('dynamodb', 'sqs', 'secretsmanager')],
      [permissionsOfFunction(keyed, keyedJson, keyedJobs.sweeper), via('dynamodb', 'sqs')],
      [permissionsOfFunction(keyed, keyedJson, keyedJobs.admin), via('dynamodb', 'sqs', 'secretsmanager')],
      [permissionsOfRole(keyedJson, producer), via('dynamodb', 'sqs')],
    ] as const;
    for (const [permissions, condition] of holders) {
      const onKey = permissions.filter((entry) => entry.resource === `${keyId}.Arn`);
      expect(onKey.map((entry) => entry.action).sort()).toEqual([
        'kms:Decrypt',
        'kms:DescribeKey',
        'kms:Encrypt',
        'kms:GenerateDataKey',
      ]);
      for (const entry of onKey) expect(entry.condition).toEqual(condition);
    }
    const secretId = keyed.resolve(
      (keyedJobs.identifierKeySecret.node.defaultChild as secretsmanager.CfnSecret).logicalId,
    );
    expect(keyedJson.Resources[secretId]?.Properties?.KmsKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  it('an existing topic replaces the created one and receives every alarm', () => {
    const custom = unbundledStack();
    const topic = new sns.Topic(custom, 'Pager', {
      masterKey: new kms.Key(custom, 'PagerKey', { enableKeyRotation: true }),
    });
    const withTopic = new FencedJobQueue(custom, 'Jobs', { workerEntry: EXAMPLE_WORKER_ENTRY, alarmTopic: topic });
    const resources = Template.fromStack(custom);
    resources.resourceCountIs('AWS::SNS::Topic', 1);
    expect(withTopic.alarmTopic).toBe(topic);
    const alarms = resources.findResources('AWS::CloudWatch::Alarm');
    expect(Object.keys(alarms).length).toBeGreaterThan(10);
    for (const alarm of Object.values(alarms)) {
      expect(alarm.Properties.AlarmActions).toEqual([
        { Ref: custom.resolve((topic.node.defaultChild as sns.CfnTopic).logicalId) },
      ]);
    }
  });
});

describe('grants', () => {
  it('grantWorkerRecordAccess gives the worker item writes on the user table, never DeleteItem', () => {
    const ledger = logical(stack.node.findChild('Ledger') as dynamodb.Table);
    const onLedger = permissionLines(permissionsOfFunction(stack, json, jobs.worker)).filter((line) =>
      line.includes(ledger),
    );
    expect(onLedger).toEqual(
      ['ConditionCheckItem', 'GetItem', 'PutItem', 'UpdateItem'].map((action) => `dynamodb:${action} on ${ledger}.Arn`),
    );
  });

  it("grantSendJobs allows storing payloads, writing and reading a delayed send's row (never in a global partition), reading the fence epoch and sending messages only", () => {
    const permissions = permissionsOfRole(json, roleId('Producer'));
    expect(permissionLines(permissions)).toEqual([
      `dynamodb:GetItem on ${logical(jobs.jobsTable)}.Arn`,
      `dynamodb:PutItem on ${logical(jobs.jobsTable)}.Arn`,
      `dynamodb:PutItem on ${logical(jobs.payloadsTable)}.Arn`,
      `sqs:SendMessage on ${logical(jobs.queue)}.Arn`,
    ]);
    // WorkItemStore.enqueue and get from scheduleDelayedJob: work rows only, never #audit, #sweeper or #quarantine#…;
    // FenceEpochs.read: the #settings row only.
    const onJobsTable = permissions.filter((entry) => entry.resource === `${logical(jobs.jobsTable)}.Arn`);
    expect(onJobsTable.map((entry) => [entry.action, entry.condition])).toEqual([
      ['dynamodb:PutItem', { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['#*'] } }],
      ['dynamodb:GetItem', { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['#*'] } }],
      ['dynamodb:GetItem', { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['#settings'] } }],
    ]);
  });

  it('grantAdminInvoke allows the Function URL with AWS_IAM auth only', () => {
    const permissions = permissionsOfRole(json, roleId('Operator'));
    expect(permissions.map((entry) => [entry.action, entry.condition])).toEqual([
      ['lambda:InvokeFunctionUrl', { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } }],
      ['lambda:InvokeFunction', { Bool: { 'lambda:InvokedViaFunctionUrl': true } }],
    ]);
  });

  it('grantTenantScopedAccess confines every statement to the tenant partition with dynamodb:LeadingKeys', () => {
    const acme = permissionsOfRole(json, roleId('AcmeTenant'));
    expect(permissionLines(acme)).toEqual([
      `dynamodb:GetItem on ${logical(jobs.jobsTable)}.Arn`,
      `dynamodb:GetItem on ${logical(jobs.payloadsTable)}.Arn`,
      `dynamodb:PutItem on ${logical(jobs.payloadsTable)}.Arn`,
      `dynamodb:Query on ${logical(jobs.jobsTable)}.Arn`,
    ]);
    for (const entry of acme) {
      expect(entry.condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['acme#*'] } });
    }
    // The pattern admits every partition key of acme's items and none of another tenant's, even a prefix-sharer.
    const admits = iamLikeMatcher('acme#*');
    expect(tenantPartitionKeys('acme').every(admits)).toBe(true);
    expect(workItemKey({ tenantId: 'acme', operationId: 'op-1' }).pk).toSatisfy(admits);
    for (const other of ['acme2', 'acm', 'globex']) expect(tenantPartitionKeys(other).some(admits)).toBe(false);
    expect(admits(AUDIT_PARTITION)).toBe(false);
    const tagged = permissionsOfRole(json, roleId('TaggedTenant'));
    expect(tagged.map((entry) => entry.resource)).toEqual([
      `${logical(jobs.payloadsTable)}.Arn`,
      `${logical(jobs.payloadsTable)}.Arn`,
    ]);
    for (const entry of tagged) {
      expect(entry.condition).toEqual({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, resolved by IAM
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['${aws:PrincipalTag/tenant}#*'] },
        StringLike: { 'aws:PrincipalTag/tenant': '?*' },
      });
    }
  });

  it('grantTenantScopedAccess refuses invalid tenants and actions LeadingKeys cannot confine', () => {
    const grantee = new iam.Role(unbundledStack(), 'R', { assumedBy: new iam.AccountRootPrincipal() });
    expect(() => jobs.grantTenantScopedAccess(grantee, { tenantId: 'acme#admin' })).toThrow();
    expect(() =>
      jobs.grantTenantScopedAccess(
        grantee,
        { tenantId: 'acme' },
        { jobsTableActions: ['dynamodb:Scan' as TenantScopedAction] },
      ),
    ).toThrow(/cannot be confined/);
  });
});
