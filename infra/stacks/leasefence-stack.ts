import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { EXAMPLES_TABLE_VARIABLE, examplesTableDefinition } from '../../functions/jobs/examples-table.js';
import { FencedJobQueue } from '../construct/fenced-job-queue.js';
import type { FencedJobQueueProps } from '../construct/props.js';
import { tableFromDefinition } from '../construct/tables.js';

/** Properties of the project's own stack. */
interface LeasefenceStackProps extends StackProps {
  /** Subscribe this address to the alarm topic; without it no topic is created. */
  readonly alarmEmail?: string;
  /** Passed through to the construct; the worker entry defaults to the project's example worker. */
  readonly jobs?: Partial<FencedJobQueueProps>;
}

/** The project's own worker entry: the example job types (functions/worker.ts). */
const EXAMPLE_WORKER_ENTRY = fileURLToPath(new URL('../../functions/worker.ts', import.meta.url));

/**
 * The deployable leasefence stack: one FencedJobQueue running the example jobs, the table their fenced
 * records live in, an optional encrypted alarm topic, and outputs (queue URL, table names, admin URL,
 * dashboard).
 */
class LeasefenceStack extends Stack {
  /** The construct this stack deploys. */
  readonly jobs: FencedJobQueue;
  /** Records of the example jobs (class A/B targets), written only by the worker. */
  readonly examplesTable: dynamodb.Table;
  /** Alarm notifications, when alarmEmail was given. */
  readonly alarmTopic: sns.Topic | undefined;

  constructor(scope: Construct, id: string, props: LeasefenceStackProps = {}) {
    super(scope, id, props);
    this.alarmTopic = props.alarmEmail ? this.createAlarmTopic(props.alarmEmail) : undefined;
    this.examplesTable = tableFromDefinition(this, 'ExamplesTable', examplesTableDefinition('ExamplesTable'), {
      removalPolicy: props.jobs?.removalPolicy ?? RemovalPolicy.RETAIN,
      deletionProtection: props.jobs?.deletionProtection ?? true,
    });
    this.jobs = new FencedJobQueue(this, 'Jobs', {
      ...props.jobs,
      workerEntry: props.jobs?.workerEntry ?? EXAMPLE_WORKER_ENTRY,
      workerEnvironment: {
        ...props.jobs?.workerEnvironment,
        [EXAMPLES_TABLE_VARIABLE]: this.examplesTable.tableName,
      },
      ...(this.alarmTopic ? { alarmTopic: this.alarmTopic } : {}),
    });
    this.jobs.grantWorkerRecordAccess(this.examplesTable);
    const outputs: Record<string, string> = {
      QueueUrl: this.jobs.queue.queueUrl,
      DeadLetterQueueUrl: this.jobs.deadLetterQueue.queueUrl,
      JobsTableName: this.jobs.jobsTable.tableName,
      PayloadsTableName: this.jobs.payloadsTable.tableName,
      ExamplesTableName: this.examplesTable.tableName,
      AdminUrl: this.jobs.adminUrl.url,
      DashboardName: this.jobs.dashboard.dashboardName,
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(this, name, { value });
  }

  /** CloudWatch can only publish to a topic encrypted with a key whose policy lets it use the key. */
  private createAlarmTopic(email: string): sns.Topic {
    const key = new kms.Key(this, 'AlarmTopicKey', {
      description: 'leasefence alarm topic encryption',
      enableKeyRotation: true,
      // The key only protects notifications in flight; nothing encrypted with it outlives the stack.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey');
    const topic = new sns.Topic(this, 'AlarmTopic', { masterKey: key, enforceSSL: true });
    topic.addSubscription(new subscriptions.EmailSubscription(email));
    return topic;
  }
}

export { EXAMPLE_WORKER_ENTRY, LeasefenceStack, type LeasefenceStackProps };
