import { DeleteQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, inject, it } from 'vitest';
import { checkArgs, openControls, runCheckStack, verdictsOf } from '../../infra/testing/deploy-lane/check-run.js';
import { invokeEmulated } from '../../infra/testing/deploy-lane/function-runtime.js';
import { functionUrlEvent } from '../support/function-url-event.js';
import { LANE_STACKS, laneEnvironment, type ProvidedLaneStack, REGION } from './lane-context.js';

const lane = inject('deployLane');
const skipped = 'skipped' in lane ? lane.skipped : undefined;
if (skipped) console.log(`[deploy-lane] SKIPPED: ${skipped}`);
const stacks = 'stacks' in lane ? lane.stacks : undefined;
const env = laneEnvironment(inject('deployLaneEndpoint'), inject('deployLaneCredentials'));
const FAULT_MODULE = 'test/integration/cli/fixtures/fault-check-module.ts';
/** Longest wait per message: the receipt crash's redelivery comes after the visibility timeout (91 s). */
const SETTLE = '150s';

/** The template's resources of one type, as properties. */
function declared(stack: ProvidedLaneStack, type: string): Array<Record<string, unknown>> {
  return Object.values(stack.template.Resources)
    .filter((resource) => resource.Type === type)
    .map((resource) => resource.Properties);
}

/**
 * The deployment lane (issue #41 item 3): the project's CDK app bootstrapped and deployed with the aws-cdk CLI to
 * moto's server, read back through the Lambda, EventBridge and Secrets Manager APIs, each function's deployed code
 * run under AWS's Lambda Runtime Interface Emulator with aws-lambda-ric (the worker fed by a poller following its
 * event source mapping), then `leasefence check --stack` with the stack's fault injection against it. The deploy is
 * the lane's global setup (test/deploy/global-setup.ts), shared with examples.test.ts.
 */
describe.skipIf(!stacks)('the project stack deployed to moto and run under the Lambda emulator', () => {
  const both = () => Object.values(stacks ?? {});

  it('every resource of each deployed stack is CREATE_COMPLETE (the CLI can print success over a failed one)', () => {
    // Assert
    for (const stack of both()) expect(stack.incomplete, stack.stackName).toEqual([]);
  });

  it('the Lambda API describes the functions, mapping and schedule the template asks for', () => {
    for (const stack of both()) {
      // Prepare
      const { deployed } = stack;
      const mapping = declared(stack, 'AWS::Lambda::EventSourceMapping')[0];
      const rule = declared(stack, 'AWS::Events::Rule')[0];
      const functions = declared(stack, 'AWS::Lambda::Function');

      // Assert
      for (const fn of Object.values(deployed.functions)) {
        const source = functions.find((properties) =>
          String(properties.Description).startsWith(`leasefence ${fn.role}:`),
        );
        expect(fn.handler).toBe(source?.Handler);
        expect(fn.runtime).toBe(source?.Runtime);
        expect(fn.timeoutSeconds).toBe(source?.Timeout);
        expect(fn.reservedConcurrency).toBe(source?.ReservedConcurrentExecutions);
        expect(fn.executionRole).toMatch(/^arn:aws:iam::123456789012:role\//);
        expect(Object.keys(fn.environment).sort()).toEqual(
          Object.keys((source?.Environment as { Variables: object } | undefined)?.Variables ?? {}).sort(),
        );
      }
      expect(deployed.functions.worker.environment.LEASEFENCE_FAULT_PLAN_SECRET_ARN).toMatch(
        /^arn:aws:secretsmanager:/,
      );
      expect(deployed.functions.sweeper.environment.LEASEFENCE_FAULT_PLAN_SECRET_ARN).toBeUndefined();
      expect(deployed.mapping).toEqual({
        uuid: expect.any(String),
        queueArn: expect.stringContaining(':sqs:'),
        batchSize: mapping?.BatchSize,
        windowSeconds: mapping?.MaximumBatchingWindowInSeconds,
        maxConcurrency: (mapping?.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency,
        reportBatchItemFailures: true,
      });
      expect(deployed.schedule).toBe(rule?.ScheduleExpression);
      expect(deployed.identifierKeyLength).toBe(64);
      // moto skips AWS::Lambda::Url (a blank row, the stack still complete): no URL to read back here.
      expect(deployed.adminUrl).toBeUndefined();
    }
  });

  it('check --stack with faults: GO for the fenced job, NO-GO for the job with an unfenced write', async () => {
    // Act
    const run = await runCheckStack(checkArgs(LANE_STACKS.faults, FAULT_MODULE, SETTLE), env);

    // Assert
    expect(verdictsOf(run), `${run.stderr}\n${openControls(run).join('\n')}`).toEqual({
      'fenced-credit': 'GO',
      'unfenced-credit': 'NO-GO',
    });
    const unfenced = run.report?.jobTypes.find((type) => type.jobType === 'unfenced-credit');
    expect(unfenced?.controls.find((control) => control.id === 4)?.status).toBe('FAIL');
    expect(run.exitCode).toBe(1);
    expect(run.report?.cleanup.rowsAfter).toBe(0);
  });

  it("moto enforces IAM: the worker role's own session may read its queue's attributes but not delete the queue", async () => {
    // Prepare: the session the emulated worker runs with (its execution role's, as the Lambda API reports it).
    const stack = stacks?.faults as ProvidedLaneStack;
    const QueueUrl = String(stack.deployed.functions.worker.environment.LEASEFENCE_QUEUE_URL);
    const sqs = new SQSClient({ region: REGION, endpoint: env.AWS_ENDPOINT_URL, credentials: stack.workerCredentials });

    // Act
    const granted = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    // moto answers the refusal in XML, which the SDK's JSON protocol cannot parse: its status and body tell.
    const refused = await sqs.send(new DeleteQueueCommand({ QueueUrl })).then(
      () => 'deleted',
      (error: {
        $metadata?: { httpStatusCode?: number };
        $response?: { statusCode?: number };
        $responseBodyText?: string;
      }) => `${error.$metadata?.httpStatusCode ?? error.$response?.statusCode} ${error.$responseBodyText ?? error}`,
    );
    sqs.destroy();

    // Assert: a grant the construct gives passes, one it does not is refused (with auth off both would pass).
    expect(granted.Attributes?.QueueArn).toBe(stack.deployed.mapping.queueArn);
    expect(refused).toMatch(/403|AccessDenied/);
    const admin = new SQSClient({
      region: REGION,
      endpoint: env.AWS_ENDPOINT_URL,
      credentials: inject('deployLaneCredentials'),
    });
    const still = await admin.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    admin.destroy();
    expect(still.Attributes?.QueueArn).toBe(stack.deployed.mapping.queueArn);
  });

  it('the admin function answers a Function URL request under the emulator (IAM auth is not emulated: the event carries it)', async () => {
    // Act
    const result = await invokeEmulated(
      String(stacks?.faults.adminUrl),
      functionUrlEvent({ method: 'GET', path: '/health' }),
    );

    // Assert
    expect(result.functionError).toBe(false);
    const response = result.functionError ? undefined : (result.response as { statusCode: number; body: string });
    expect(response?.statusCode).toBe(200);
    expect(JSON.parse(String(response?.body)).status).toBe('ok');
  });
});
