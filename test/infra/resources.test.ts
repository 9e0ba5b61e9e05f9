import { rmSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_TABLE_VARIABLE, examplesTableDefinition } from '../../examples/jobs/examples-table.js';
import type { LeasefenceStack } from '../../infra/app/stacks/leasefence-stack.js';
import { type SynthResult, synthLeasefenceApp } from '../../infra/app/synth.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { METRIC_NAMESPACE, MetricName } from '../../lib/metric-names.js';
import {
  DEFAULT_DEADLINE_SHARDS,
  jobsTableDefinition,
  payloadsTableDefinition,
  TTL_ATTRIBUTE,
} from '../../lib/store/table.js';
import { logicalIdOf, resourcesOfType, type Template as TemplateJson } from './support/template-queries.js';

let stack: LeasefenceStack;
let template: Template;
let json: TemplateJson;

let synth: SynthResult;

beforeAll(() => {
  synth = synthLeasefenceApp({
    stackProps: { alarmEmail: 'ops@example.com' },
    checks: false, // cdk-nag: nag.test.ts and the `cdk synth` case in synth.test.ts
    bundling: false, // bundles: synth.test.ts
  });
  stack = synth.stack;
  json = synth.template as TemplateJson;
  template = Template.fromJSON(synth.template);
});

afterAll(() => rmSync(synth.outdir, { recursive: true, force: true }));

const ref = (construct: Parameters<typeof logicalIdOf>[1]) => logicalIdOf(stack, construct);

describe('tables are built from their CreateTable definitions', () => {
  it.each([
    ['jobs', () => stack.jobs.jobsTable, jobsTableDefinition('x')],
    ['payloads', () => stack.jobs.payloadsTable, payloadsTableDefinition('x')],
  ] as const)('%s table: keys, attributes and GSIs equal the definition', (_name, table, definition) => {
    const resource = json.Resources[ref(table())];
    const props = resource?.Properties ?? {};
    expect(props.KeySchema).toEqual(definition.KeySchema);
    expect(props.AttributeDefinitions).toEqual(expect.arrayContaining(definition.AttributeDefinitions ?? []));
    expect((props.AttributeDefinitions as unknown[]).length).toBe(definition.AttributeDefinitions?.length);
    expect(props.GlobalSecondaryIndexes ?? []).toEqual(definition.GlobalSecondaryIndexes ?? []);
    expect(props).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      // SSEEnabled alone = the AWS-managed key (alias/aws/dynamodb), not the AWS-owned default.
      SSESpecification: { SSEEnabled: true },
    });
    expect(resource).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('the example jobs get their own record table (PITR, retained, no TTL) named in the worker environment', () => {
    const table = json.Resources[ref(stack.examplesTable)];
    expect(table?.Properties).toMatchObject({
      KeySchema: examplesTableDefinition('x').KeySchema,
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table?.Properties?.TimeToLiveSpecification).toBeUndefined();
    expect(table?.DeletionPolicy).toBe('Retain');
    const env = json.Resources[ref(stack.jobs.worker)]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(env.Variables[EXAMPLES_TABLE_VARIABLE]).toEqual({ Ref: ref(stack.examplesTable) });
    const sweeperEnv = json.Resources[ref(stack.jobs.sweeper)]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(sweeperEnv.Variables[EXAMPLES_TABLE_VARIABLE]).toBeUndefined();
    // The identifier key secret: worker and admin read it, the sweeper logs no ids and gets neither it nor access.
    const secret = { Ref: ref(stack.jobs.identifierKeySecret) };
    const adminEnv = json.Resources[ref(stack.jobs.admin)]?.Properties?.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(env.Variables[EnvironmentVariable.identifierKeySecretArn]).toEqual(secret);
    expect(adminEnv.Variables[EnvironmentVariable.identifierKeySecretArn]).toEqual(secret);
    expect(sweeperEnv.Variables[EnvironmentVariable.identifierKeySecretArn]).toBeUndefined();
    // ... and the stack outputs it: the CLI's audit-writing commands read the same key with --stack.
    template.hasOutput('IdentifierKeySecretArn', { Value: secret });
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
      SecretString: Match.absent(),
    });
  });
});

describe('queues', () => {
  it('the jobs queue is encrypted, redrives to the DLQ and outlasts six worker timeouts', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      KmsMasterKeyId: 'alias/aws/sqs',
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [ref(stack.jobs.deadLetterQueue), 'Arn'] },
        maxReceiveCount: 5,
      },
      VisibilityTimeout: 6 * 60 + 1,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      KmsMasterKeyId: 'alias/aws/sqs',
      MessageRetentionPeriod: 14 * 86_400,
      RedrivePolicy: Match.absent(),
    });
    const worker = json.Resources[ref(stack.jobs.worker)]?.Properties;
    const queue = json.Resources[ref(stack.jobs.queue)]?.Properties;
    expect(Number(queue?.VisibilityTimeout)).toBeGreaterThanOrEqual(6 * Number(worker?.Timeout));
  });

  it.each(['queue', 'deadLetterQueue'] as const)('%s denies requests without TLS', (name) => {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: ref(stack.jobs[name]) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('functions', () => {
  const functions = ['worker', 'sweeper', 'admin'] as const;

  it.each(functions)('%s: nodejs22.x on arm64, ESM bundle, logs with retention, full environment', (name) => {
    const fn = json.Resources[ref(stack.jobs[name])]?.Properties ?? {};
    expect(fn).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler' });
    const env = (fn.Environment as { Variables: Record<string, unknown> }).Variables;
    for (const variable of [
      EnvironmentVariable.jobsTable,
      EnvironmentVariable.payloadsTable,
      EnvironmentVariable.queueUrl,
      EnvironmentVariable.deadLetterQueueUrl,
      EnvironmentVariable.deadlineShards,
      EnvironmentVariable.payloadRetentionDays,
    ]) {
      expect(env[variable], variable).toBeDefined();
    }
    expect(env).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'leasefence',
      POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
      [EnvironmentVariable.deadlineShards]: '32',
      [EnvironmentVariable.payloadRetentionDays]: '30',
      NODE_OPTIONS: '--enable-source-maps',
    });
    const logGroupId = (fn.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(json.Resources[logGroupId]).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'Retain',
    });
  });

  it('the worker consumes the queue with partial batch responses, a batching window and a concurrency cap', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ref(stack.jobs.worker) },
      EventSourceArn: { 'Fn::GetAtt': [ref(stack.jobs.queue), 'Arn'] },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 1,
      ScalingConfig: { MaximumConcurrency: 10 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: Match.absent(),
      Timeout: 60,
      MemorySize: 512,
      Description: Match.stringLikeRegexp('worker'),
    });
  });

  it('the sweeper runs every minute without retries', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [ref(stack.jobs.sweeper), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        }),
      ],
    });
    // Lambda's own asynchronous queue (defaults: 2 retries, events up to 6 h) neither retries nor holds a tick.
    const invokeConfigs = resourcesOfType(json, 'AWS::Lambda::EventInvokeConfig');
    expect(invokeConfigs.map(([, resource]) => resource.Properties)).toEqual([
      {
        FunctionName: { Ref: ref(stack.jobs.sweeper) },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 60,
      },
    ]);
  });
});

describe('outputs', () => {
  it('name every table and queue and carry the settings operator tools read (deadline shards)', () => {
    for (const name of ['QueueUrl', 'DeadLetterQueueUrl', 'JobsTableName', 'PayloadsTableName', 'ExamplesTableName'])
      template.hasOutput(name, {});
    template.hasOutput('DeadlineShards', { Value: String(DEFAULT_DEADLINE_SHARDS) });
    expect(stack.jobs.deadlineShards).toBe(DEFAULT_DEADLINE_SHARDS);
  });
});

describe('alarms and dashboard', () => {
  const topic = () => ({ Ref: logicalIdOf(stack, stack.jobs.alarmTopic) });
  const custom = [
    [MetricName.HeartbeatSkippedNoProgress, 'Sum', 3],
    [MetricName.LeaseRenewalFailed, 'Sum', 3],
    [MetricName.EffectRefusedInLeaseDoubt, 'Sum', 1],
    [MetricName.OldestUnknownAgeSeconds, 'Maximum', 3600],
    [MetricName.OldestAwaitingApprovalAgeSeconds, 'Maximum', 86_400],
    [MetricName.Quarantined, 'Sum', 1],
    [MetricName.Takeovers, 'Sum', 5],
    [MetricName.StaleFenceRejected, 'Sum', 1],
  ] as const;

  it.each(custom)(
    'alarm on %s (%s >= %d) in the Leasefence namespace, notifying the topic',
    (metric, stat, threshold) => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: METRIC_NAMESPACE,
        MetricName: metric,
        Dimensions: [{ Name: 'service', Value: 'leasefence' }],
        Statistic: stat,
        Period: 300,
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [topic()],
        OKActions: [topic()],
      });
    },
  );

  it.each([
    ['the DLQ depth', 'deadLetterQueue', 'ApproximateNumberOfMessagesVisible', 1],
    [
      'the age of the oldest DLQ message (before its 14-day expiry)',
      'deadLetterQueue',
      'ApproximateAgeOfOldestMessage',
      864_000,
    ],
    ['the age of the oldest jobs message', 'queue', 'ApproximateAgeOfOldestMessage', 3600],
  ] as const)('alarm on %s', (_name, queue, metric, threshold) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: metric,
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ref(stack.jobs[queue]), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: threshold,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [topic()],
    });
  });

  it.each(['worker', 'sweeper', 'admin'] as const)('alarms on errors and throttles of the %s function', (name) => {
    for (const metric of ['Errors', 'Throttles']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: metric,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: ref(stack.jobs[name]) } }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [topic()],
      });
    }
  });

  it('alarms when the sweeper was not invoked in two schedule intervals, treating missing data as breaching', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ref(stack.jobs.sweeper) } }],
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [topic()],
      OKActions: [topic()],
    });
  });

  it('alarms on the first restore mismatch (RestoreMismatch, Sum >= 1), naming the raise-fences remedy', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRIC_NAMESPACE,
      MetricName: MetricName.RestoreMismatch,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmDescription: Match.stringLikeRegexp('raise-fences'),
    });
  });

  it('alarms when a job has waited 15 minutes for a concurrency slot (ConcurrencyWaitSeconds, Maximum), naming leasefence limits', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRIC_NAMESPACE,
      MetricName: MetricName.ConcurrencyWaitSeconds,
      Statistic: 'Maximum',
      Threshold: 900,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmDescription: Match.stringLikeRegexp('leasefence limits'),
    });
  });

  it('alarms when 100 jobs in 5 minutes waited on an empty provider budget past the in-process wait (RateLimitDeferred, Sum)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRIC_NAMESPACE,
      MetricName: MetricName.RateLimitDeferred,
      Statistic: 'Sum',
      Threshold: 100,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmDescription: Match.stringLikeRegexp('leasefence limits <type> --provider'),
    });
  });

  it('alarms when a job has waited 15 minutes on a provider budget (RateLimitWaitSeconds, Maximum), naming leasefence limits', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRIC_NAMESPACE,
      MetricName: MetricName.RateLimitWaitSeconds,
      Statistic: 'Maximum',
      Threshold: 900,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmDescription: Match.stringLikeRegexp('leasefence limits <type> --provider'),
    });
  });

  it('every alarm notifies the topic on ALARM and OK; only the not-running alarm breaches on missing data', () => {
    const alarms = resourcesOfType(json, 'AWS::CloudWatch::Alarm');
    const perJobType = Object.values(stack.jobs.jobTypeAlarms).flatMap(Object.values);
    // The keyed alarms, the in-flight and worker-concurrency alarms (in-flight-alarm.ts, concurrency-alarm.ts) and
    // the per-job-type ones.
    expect(alarms).toHaveLength(Object.keys(stack.jobs.alarms).length + 2 + perJobType.length);
    // 24 service-wide, and 5 for each of the 3 example job types (their routes are labels: the default topic).
    expect(alarms).toHaveLength(24 + 3 * 5);
    for (const [id, alarm] of alarms) {
      expect(alarm.Properties?.AlarmActions, id).toEqual([topic()]);
      expect(alarm.Properties?.OKActions, id).toEqual([topic()]);
    }
    const breaching = alarms.filter(([, alarm]) => alarm.Properties?.TreatMissingData === 'breaching');
    expect(breaching.map(([, alarm]) => alarm.Properties?.MetricName)).toEqual(['Invocations']);
  });

  it('the alarm topic is KMS-encrypted, TLS-only, and CloudWatch may use it only for this account', () => {
    const account = { Ref: 'AWS::AccountId' };
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Condition: { StringEquals: { 'aws:SourceAccount': account } },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': account } },
          }),
        ]),
      },
    });
    // No statement for a service principal goes without the account condition.
    for (const type of ['AWS::KMS::Key', 'AWS::SNS::TopicPolicy']) {
      for (const [id, resource] of resourcesOfType(json, type)) {
        const document = (resource.Properties?.KeyPolicy ?? resource.Properties?.PolicyDocument) as {
          Statement: Array<Record<string, unknown>>;
        };
        for (const statement of document.Statement) {
          if (!JSON.stringify(statement.Principal ?? {}).includes('Service')) continue;
          expect(JSON.stringify(statement.Condition), id).toContain('aws:SourceAccount');
        }
      }
    }
  });

  it('the dashboard graphs every leasefence metric, both queues and shows every alarm', () => {
    const [[, dashboard] = []] = resourcesOfType(json, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody);
    for (const metric of Object.values(MetricName)) expect(body, metric).toContain(metric);
    expect(body).toContain(ref(stack.jobs.queue));
    expect(body).toContain(ref(stack.jobs.deadLetterQueue));
    expect(body).toContain('ApproximateAgeOfOldestMessage');
    for (const [id] of resourcesOfType(json, 'AWS::CloudWatch::Alarm')) expect(body, id).toContain(id);
  });
});

describe('reserved concurrency', () => {
  it('sweeper 1 (never overlaps itself), admin 5, worker = the event source maximum concurrency', () => {
    const reserved = (name: 'worker' | 'sweeper' | 'admin') =>
      json.Resources[ref(stack.jobs[name])]?.Properties?.ReservedConcurrentExecutions;
    expect({ worker: reserved('worker'), sweeper: reserved('sweeper'), admin: reserved('admin') }).toEqual({
      worker: 10,
      sweeper: 1,
      admin: 5,
    });
  });
});
