import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import {
  awsLaneEnvironment,
  awsLaneStack,
  parseTestAwsArgs,
  refuseNonTestStack,
  refuseUnmarkedAccount,
  TestAwsRefusal,
} from './aws-command.js';
import { checkArgs, runCheckStack } from './check-run.js';
import { deployLane, destroyLane, incompleteResources, type Lane } from './lane.js';

// `npm run test:aws -- --profile X --account <id>`: the deployment lane against a real account (infra/README.md
// "Deployment lane"). It cannot run in this project's CI (no network beyond the package registries): everything up
// to the first AWS call is unit-tested (test/unit/testing/deploy-lane/aws-command.test.ts).

/**
 * The check's longest wait per message on the construct's default timeouts: the receipt crash's redelivery comes
 * after the queue's visibility timeout (6 × 60 s + 1 s) and the example jobs' 30 s lease.
 */
const AWS_SETTLE = '450s';

async function existingStack(stackName: string): Promise<{ exists: boolean; environment?: string }> {
  const cloudformation = new CloudFormationClient({});
  try {
    const answer = await cloudformation.send(new DescribeStacksCommand({ StackName: stackName }));
    const environment = answer.Stacks?.[0]?.Outputs?.find((output) => output.OutputKey === 'Environment')?.OutputValue;
    return { exists: true, ...(environment ? { environment } : {}) };
  } catch (error) {
    if (/does not exist/.test((error as Error).message)) return { exists: false };
    throw error;
  } finally {
    cloudformation.destroy();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseTestAwsArgs(argv, process.env);
  const env = awsLaneEnvironment(options, process.env);
  Object.assign(process.env, { AWS_PROFILE: options.profile, AWS_REGION: options.region });
  delete process.env.AWS_ENDPOINT_URL;
  const sts = new STSClient({});
  const caller = await sts.send(new GetCallerIdentityCommand({}));
  sts.destroy();
  refuseUnmarkedAccount(String(caller.Account), options, process.env);
  refuseNonTestStack(options.stackName, await existingStack(options.stackName));
  const lane: Lane = {
    kind: 'aws',
    stack: awsLaneStack(options),
    env,
    assembly: join(await mkdtemp(join(tmpdir(), 'leasefence-test-aws-')), 'assembly'),
  };
  try {
    await deployLane(lane, console.log);
    const incomplete = await incompleteResources(options.stackName);
    if (incomplete.length > 0) console.log(`[test:aws] not complete: ${incomplete.join('; ')}`);
    const run = await runCheckStack(checkArgs(options.stackName, undefined, AWS_SETTLE), env);
    for (const type of run.report?.jobTypes ?? []) console.log(`[test:aws] ${type.jobType}: ${type.verdict}`);
    console.log(`[test:aws] check --stack exit code ${run.exitCode}${run.stderr ? `\n${run.stderr}` : ''}`);
    return incomplete.length === 0 && run.exitCode === 0 ? 0 : 1;
  } finally {
    if (!options.keep) await destroyLane(lane);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof TestAwsRefusal ? `test:aws refused: ${error.message}` : error);
    process.exit(error instanceof TestAwsRefusal ? 2 : 1);
  },
);
