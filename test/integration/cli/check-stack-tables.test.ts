import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { examplesTableDefinition } from '../../../examples/jobs/examples-table.js';
import { EXAMPLES_TABLE } from '../../../examples/jobs/module.js';
import { main } from '../../../infra/cli/main.js';
import { examplePath, type LoadedJobs, loadJobsModule } from '../../../infra/local/jobs-module.js';
import type { RunningLocalStack } from '../../../infra/local/stack.js';
import { type CloudFormationServer, startCloudFormationServer } from '../../support/cloudformation-server.js';
import { startStateFileStack, stopStateFileStack, type TempLocalDir } from '../../support/quiet-stack.js';
import { captureIo } from '../../unit/cli/io.js';
import type { StackCheckReport } from './stack-check-report.js';

/** The examples table as a deployed project stack names it (its ExamplesTableName output), not the declared name. */
const STACK_EXAMPLES = 'JobsTest-ExamplesTable-1A2B3C';

/**
 * `check --stack <name>` on the example jobs (no --jobs) against a deployed project stack whose examples table has
 * the stack's own name: the class A example's `prepare` must seed its stock where the stack's worker reads it (the
 * ExamplesTableName output), not under the module's declared name. The "deployed" stack is a local stack running the
 * example jobs on a table of that name, resolved through a loopback CloudFormation endpoint (nothing reaches AWS).
 */
describe('leasefence check --stack <name>: the example jobs seeded into the stack examples table', () => {
  let stack: RunningLocalStack;
  let local: TempLocalDir;
  let cloudFormation: CloudFormationServer;

  beforeAll(async () => {
    const examples = await loadJobsModule(examplePath('jobs/module'));
    const renamed: LoadedJobs = {
      ...examples,
      tables: [examplesTableDefinition(STACK_EXAMPLES)],
      build: (environment) => examples.build({ tables: { ...environment.tables, [EXAMPLES_TABLE]: STACK_EXAMPLES } }),
    };
    ({ stack, local } = await startStateFileStack({ pollers: 2, jobs: renamed }));
    cloudFormation = await startCloudFormationServer([
      {
        name: 'JobsTest',
        outputs: {
          JobsTableName: stack.state.tables.jobs,
          PayloadsTableName: stack.state.tables.payloads,
          QueueUrl: stack.state.queues.jobs,
          DeadlineShards: String(stack.state.settings.deadlineShards),
          ExamplesTableName: STACK_EXAMPLES,
          Environment: 'test',
        },
      },
    ]);
  });
  afterEach(() => vi.unstubAllEnvs());
  afterAll(async () => {
    await cloudFormation?.stop();
    await stopStateFileStack(stack, local);
  });

  it("the class A example's stock is seeded into the stack's ExamplesTableName; its scenarios reach the stack's worker", async () => {
    // Prepare
    vi.stubEnv('AWS_ENDPOINT_URL_CLOUDFORMATION', cloudFormation.url);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', stack.state.endpoints.dynamodb);
    vi.stubEnv('AWS_ENDPOINT_URL_SQS', stack.state.endpoints.sqs);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    const io = captureIo();

    // Act
    await main(['check', '--stack', 'JobsTest', '--region', 'us-east-1', '--settle-timeout', '60s', '--json'], io);

    // Assert
    const parsed = JSON.parse(io.stdout()) as { jobTypes: StackCheckReport[] };
    const classA = parsed.jobTypes.find((report) => report.jobType === 'inventory-reservation');
    const details = classA?.scenarios.map((scenario) => `${scenario.id}: ${scenario.detail}`).join('\n') ?? '';
    expect(details, io.stderr()).not.toMatch(/ResourceNotFound|non-existent table/i);
    // dynalite lacks TransactWriteItems: the class A job reached the stack's worker and stopped there (not evaluated).
    expect(classA?.scenarios.find((scenario) => scenario.id === 'replay')?.detail).toContain(
      'lacks TransactWriteItems',
    );
    const seeded =
      (await stack.client.send(new ScanCommand({ TableName: STACK_EXAMPLES, ConsistentRead: true }))).Items ?? [];
    expect(seeded.filter((row) => String(row.pk).startsWith('inventory#lfcheck-')).length).toBeGreaterThan(0);
  }, 300_000);
});
