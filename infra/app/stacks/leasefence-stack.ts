import { fileURLToPath } from 'node:url';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { EXAMPLES_TABLE_VARIABLE, examplesTableDefinition } from '../../../examples/jobs/examples-table.js';
import { createExampleJobs } from '../../../examples/jobs/index.js';
import { alertRoutesOf } from '../../../lib/alert-route.js';
import { FencedJobQueue } from '../../construct/fenced-job-queue.js';
import type { FencedJobQueueProps } from '../../construct/props.js';
import { tableFromDefinition } from '../../construct/tables.js';

/** Properties of the project's own stack. */
interface LeasefenceStackProps extends StackProps {
  /** Subscribe this address to the construct's alarm topic. */
  readonly alarmEmail?: string;
  /** Passed through to the construct; the worker entry defaults to the project's example worker. */
  readonly jobs?: Partial<FencedJobQueueProps>;
}

/** The project's own worker entry: the example job types (examples/worker.ts). */
const EXAMPLE_WORKER_ENTRY = fileURLToPath(new URL('../../../examples/worker.ts', import.meta.url));

/**
 * The deployable leasefence stack: one FencedJobQueue running the example jobs, the table their fenced
 * records live in (encrypted like the construct's tables), and outputs (queue URL, table names, deadline shards,
 * admin URL, dashboard, alarm topic).
 */
class LeasefenceStack extends Stack {
  /** The construct this stack deploys. */
  readonly jobs: FencedJobQueue;
  /** Records of the example jobs (class A/B targets), written only by the worker. */
  readonly examplesTable: dynamodb.Table;

  constructor(scope: Construct, id: string, props: LeasefenceStackProps = {}) {
    super(scope, id, props);
    this.examplesTable = tableFromDefinition(this, 'ExamplesTable', examplesTableDefinition('ExamplesTable'), {
      removalPolicy: props.jobs?.removalPolicy ?? RemovalPolicy.RETAIN,
      deletionProtection: props.jobs?.deletionProtection ?? true,
      ...(props.jobs?.encryptionKey ? { encryptionKey: props.jobs.encryptionKey } : {}),
    });
    this.jobs = new FencedJobQueue(this, 'Jobs', {
      // Each example job type's alarms go to the route its definition names (the definition is the one source;
      // only the routes are read here, so the table name is a placeholder, not the token of the table above).
      alertRoutes: alertRoutesOf(createExampleJobs('leasefence-examples')),
      ...props.jobs,
      workerEntry: props.jobs?.workerEntry ?? EXAMPLE_WORKER_ENTRY,
      workerEnvironment: {
        ...props.jobs?.workerEnvironment,
        [EXAMPLES_TABLE_VARIABLE]: this.examplesTable.tableName,
      },
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
    this.jobs.grantWorkerRecordAccess(this.examplesTable);
    const outputs: Record<string, string> = {
      QueueUrl: this.jobs.queue.queueUrl,
      DeadLetterQueueUrl: this.jobs.deadLetterQueue.queueUrl,
      JobsTableName: this.jobs.jobsTable.tableName,
      PayloadsTableName: this.jobs.payloadsTable.tableName,
      // The CLI and console read the deployment's settings from its outputs, never assume them.
      DeadlineShards: String(this.jobs.deadlineShards),
      ExamplesTableName: this.examplesTable.tableName,
      AdminUrl: this.jobs.adminUrl.url,
      DashboardName: this.jobs.dashboard.dashboardName,
      AlarmTopicArn: this.jobs.alarmTopic.topicArn,
      // What tools may do to this deployment: only test and staging stacks take injected test traffic.
      Environment: this.jobs.environment,
      // Where `check --stack` writes its fault plan (only with the faultInjection prop, on a test or staging stack).
      // The key audit pseudonyms are made under: the CLI's audited commands read it (never the public development key).
      IdentifierKeySecretArn: this.jobs.identifierKeySecret.secretArn,
      ...(this.jobs.faultPlanSecret ? { FaultPlanSecretArn: this.jobs.faultPlanSecret.secretArn } : {}),
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(this, name, { value });
  }
}

export { EXAMPLE_WORKER_ENTRY, LeasefenceStack, type LeasefenceStackProps };
