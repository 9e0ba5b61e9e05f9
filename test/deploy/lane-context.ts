import type { LaneCredentials } from '../../infra/testing/deploy-lane/moto-auth.js';
import type { DeployedStack } from '../../infra/testing/deploy-lane/read-back.js';

/** The account and region the lane deploys to in moto. */
const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' } as const;

/** The lane's two stacks (one fault plan per stack: the two checks run at once, each on its own). */
const LANE_STACKS = { faults: 'LeasefenceLane', examples: 'LeasefenceLaneExamples' } as const;
type LaneStackRole = keyof typeof LANE_STACKS;

/** One deployed and emulated stack, as the lane's global setup hands it to the test files. */
interface ProvidedLaneStack {
  readonly stackName: string;
  readonly deployed: DeployedStack;
  /** The synthesized template (what the read-back is compared with). */
  readonly template: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  /** The emulated admin function's invocation URL (loopback). */
  readonly adminUrl: string;
  /** Resources not CREATE_COMPLETE right after the deploy (`type id status`). */
  readonly incomplete: readonly string[];
  /** A session of the worker's execution role (what the emulated worker runs with, moto's auth on). */
  readonly workerCredentials: LaneCredentials;
}

/** What the global setup provides: absent ▶ the lane's tools were not given, every test skips saying why. */
type ProvidedLane = { readonly skipped: string } | { readonly stacks: Record<LaneStackRole, ProvidedLaneStack> };

/**
 * The environment the CLI children and the SDK clients of a test file use: moto's endpoint, and `credentials` (the
 * lane's admin key once moto's auth is on; the test credentials before, for cdk).
 */
function laneEnvironment(endpoint: string, credentials?: LaneCredentials): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(credentials
      ? { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey }
      : CREDENTIALS),
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_ENDPOINT_URL: endpoint,
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    deployLane: ProvidedLane;
    deployLaneEndpoint: string;
    /** The lane's admin key (every action; moto's auth is on while the tests run). */
    deployLaneCredentials: LaneCredentials;
  }
}

export {
  ACCOUNT,
  CREDENTIALS,
  LANE_STACKS,
  type LaneStackRole,
  laneEnvironment,
  type ProvidedLane,
  type ProvidedLaneStack,
  REGION,
};
