import { describe, expect, it } from 'vitest';
import {
  awsLaneEnvironment,
  awsLaneStack,
  parseTestAwsArgs,
  refuseNonTestStack,
  refuseUnmarkedAccount,
  TestAwsRefusal,
} from '../../../../infra/testing/deploy-lane/aws-command.js';
import { cdkArgs } from '../../../../infra/testing/deploy-lane/cdk.js';

const ARGS = ['--profile', 'sandbox', '--account', '111122223333', '--region', 'eu-west-1'];

describe('npm run test:aws, up to the first AWS call', () => {
  it('refuses a missing profile, a malformed account, a missing region and a stack not named as a test one', () => {
    // Assert
    expect(() => parseTestAwsArgs(['--account', '111122223333'], {})).toThrow(/--profile is required/);
    expect(() => parseTestAwsArgs(['--profile', 'p', '--account', '42'], {})).toThrow(/12-digit/);
    expect(() => parseTestAwsArgs(['--profile', 'p', '--account', '111122223333'], {})).toThrow(/--region/);
    expect(() => parseTestAwsArgs([...ARGS, '--stack', 'Leasefence'], {})).toThrow(/ends in "Test"/);
    expect(() => parseTestAwsArgs([...ARGS, '--force'], {})).toThrow(TestAwsRefusal);
  });

  it('takes the region from AWS_REGION and defaults the stack to LeasefenceTest', () => {
    // Act
    const options = parseTestAwsArgs(['--profile', 'p', '--account', '111122223333'], { AWS_REGION: 'us-west-2' });

    // Assert
    expect(options).toEqual({
      profile: 'p',
      account: '111122223333',
      region: 'us-west-2',
      stackName: 'LeasefenceTest',
      keep: false,
    });
  });

  it('refuses an account the profile does not sign in to, or one LEASEFENCE_TEST_ACCOUNTS does not list', () => {
    // Prepare
    const options = parseTestAwsArgs(ARGS, {});

    // Assert
    expect(() => refuseUnmarkedAccount('999988887777', options, { LEASEFENCE_TEST_ACCOUNTS: '999988887777' })).toThrow(
      /signs in to account 999988887777, not --account 111122223333/,
    );
    expect(() => refuseUnmarkedAccount('111122223333', options, {})).toThrow(/not marked for tests/);
    expect(() =>
      refuseUnmarkedAccount('111122223333', options, { LEASEFENCE_TEST_ACCOUNTS: '1, 111122223333' }),
    ).not.toThrow();
  });

  it('refuses to deploy over an existing stack not marked test; a new stack or a test one is fine', () => {
    // Assert
    expect(() => refuseNonTestStack('LeasefenceTest', { exists: true, environment: 'production' })).toThrow(
      /marked production/,
    );
    expect(() => refuseNonTestStack('LeasefenceTest', { exists: true })).toThrow(/no Environment output/);
    expect(() => refuseNonTestStack('LeasefenceTest', { exists: true, environment: 'test' })).not.toThrow();
    expect(() => refuseNonTestStack('LeasefenceTest', { exists: false })).not.toThrow();
  });

  it("runs the CI lane's cdk steps with AWS's endpoints: a test stack with fault injection, change sets, no endpoint", () => {
    // Prepare
    const options = parseTestAwsArgs(ARGS, {});

    // Act
    const stack = awsLaneStack(options);
    const env = awsLaneEnvironment(options, {
      AWS_ENDPOINT_URL: 'http://localhost:1',
      AWS_ACCESS_KEY_ID: 'testing',
      PATH: '/bin',
    });

    // Assert
    expect(cdkArgs('bootstrap', stack, '/tmp/a')[1]).toBe('aws://111122223333/eu-west-1');
    expect(cdkArgs('synth', stack, '/tmp/a')).toEqual(
      expect.arrayContaining(['-c', 'stackName=LeasefenceTest', '-c', 'environment=test', '-c', 'faultInjection=true']),
    );
    expect(cdkArgs('deploy', stack, '/tmp/a')).not.toContain('--method');
    expect(cdkArgs('destroy', stack, '/tmp/a')).toEqual(
      expect.arrayContaining(['destroy', '--force', 'LeasefenceTest']),
    );
    expect(env).toEqual({
      PATH: '/bin',
      AWS_PROFILE: 'sandbox',
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
    });
  });
});
