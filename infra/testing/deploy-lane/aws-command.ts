import { parseArgs } from 'node:util';
import type { LaneStack } from './cdk.js';

/** `npm run test:aws -- …` was called wrongly, or the account or stack is not one for tests: nothing was deployed. */
class TestAwsRefusal extends Error {
  override readonly name = 'TestAwsRefusal';
}

/** What `npm run test:aws` was asked to do. */
interface TestAwsOptions {
  readonly profile: string;
  readonly account: string;
  readonly region: string;
  readonly stackName: string;
  readonly keep: boolean;
}

const USAGE =
  'usage: npm run test:aws -- --profile <profile> --account <12-digit id> [--region <region>] [--stack <name ending in Test>] [--keep]';

/** The variable that marks accounts for tests: comma-separated ids, set by the team outside the command line. */
const TEST_ACCOUNTS_VARIABLE = 'LEASEFENCE_TEST_ACCOUNTS';

/**
 * Parses `npm run test:aws` arguments. A missing profile or account, an account that is not 12 digits, no region
 * (flag or AWS_REGION), or a stack name not ending in `Test` ▶ TestAwsRefusal, before any AWS call.
 */
function parseTestAwsArgs(argv: readonly string[], env: NodeJS.ProcessEnv): TestAwsOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        profile: { type: 'string' },
        account: { type: 'string' },
        region: { type: 'string' },
        stack: { type: 'string' },
        keep: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new TestAwsRefusal(`${(error as Error).message}\n${USAGE}`);
  }
  const profile = values.profile as string | undefined;
  const account = values.account as string | undefined;
  const region = (values.region as string | undefined) ?? env.AWS_REGION;
  const stackName = (values.stack as string | undefined) ?? 'LeasefenceTest';
  if (!profile) throw new TestAwsRefusal(`--profile is required (the credentials of the test account)\n${USAGE}`);
  if (!account || !/^\d{12}$/.test(account)) {
    throw new TestAwsRefusal(
      `--account must be the test account's 12-digit id (it is compared with the profile's)\n${USAGE}`,
    );
  }
  if (!region) throw new TestAwsRefusal(`--region (or AWS_REGION) is required\n${USAGE}`);
  if (!/^[A-Za-z][A-Za-z0-9-]{0,120}Test$/.test(stackName)) {
    throw new TestAwsRefusal(`--stack ${stackName}: a test stack's name ends in "Test" (it is deployed and destroyed)`);
  }
  return { profile, account, region, stackName, keep: values.keep === true };
}

/**
 * Refuses an account not marked for tests: the profile's account (STS) must be the `--account` given, and listed in
 * LEASEFENCE_TEST_ACCOUNTS. Refused ▶ TestAwsRefusal naming which check failed.
 */
function refuseUnmarkedAccount(callerAccount: string, options: TestAwsOptions, env: NodeJS.ProcessEnv): void {
  if (callerAccount !== options.account) {
    throw new TestAwsRefusal(
      `profile ${options.profile} signs in to account ${callerAccount}, not --account ${options.account}: nothing deployed`,
    );
  }
  const marked = (env[TEST_ACCOUNTS_VARIABLE] ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (!marked.includes(callerAccount)) {
    throw new TestAwsRefusal(
      `account ${callerAccount} is not marked for tests (${TEST_ACCOUNTS_VARIABLE} lists ${marked.join(', ') || 'none'}): nothing deployed`,
    );
  }
}

/**
 * Refuses to deploy over a stack that exists and is not a test one: `environment` is its `Environment` output
 * (undefined: the stack does not exist, or has no such output: `exists` tells which). Refused ▶ TestAwsRefusal.
 */
function refuseNonTestStack(stackName: string, existing: { exists: boolean; environment?: string }): void {
  if (existing.exists && existing.environment !== 'test') {
    throw new TestAwsRefusal(
      `stack ${stackName} exists and is marked ${existing.environment ?? 'nothing (no Environment output)'}, not test: nothing deployed or destroyed`,
    );
  }
}

/** The lane's stack for a real account: the example worker, the construct's own timeouts, CloudFormation change sets. */
function awsLaneStack(options: TestAwsOptions): LaneStack {
  return { stackName: options.stackName, account: options.account, region: options.region };
}

/** The children's environment: the profile and region, and no AWS_ENDPOINT_URL (AWS's own endpoints). */
function awsLaneEnvironment(options: TestAwsOptions, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { AWS_ENDPOINT_URL: _endpoint, AWS_ACCESS_KEY_ID: _key, AWS_SECRET_ACCESS_KEY: _secret, ...rest } = env;
  return { ...rest, AWS_PROFILE: options.profile, AWS_REGION: options.region, AWS_DEFAULT_REGION: options.region };
}

export {
  awsLaneEnvironment,
  awsLaneStack,
  parseTestAwsArgs,
  refuseNonTestStack,
  refuseUnmarkedAccount,
  TEST_ACCOUNTS_VARIABLE,
  type TestAwsOptions,
  TestAwsRefusal,
};
