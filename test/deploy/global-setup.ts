import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TestProject } from 'vitest/node';
import { type EmulatedStack, startEmulatedStack } from '../../infra/testing/deploy-lane/emulated-stack.js';
import { deployLanes, incompleteResources, type Lane, timed } from '../../infra/testing/deploy-lane/lane.js';
import {
  createAdminKey,
  enableMotoAuth,
  type LaneCredentials,
  roleSession,
  widenForMoto,
} from '../../infra/testing/deploy-lane/moto-auth.js';
import {
  type DeployedStack,
  type FunctionRole,
  handOverMapping,
  readDeployedStack,
} from '../../infra/testing/deploy-lane/read-back.js';
import { ledgerTable } from '../integration/cli/fixtures/cases/ledger.js';
import {
  ACCOUNT,
  CREDENTIALS,
  LANE_STACKS,
  type LaneStackRole,
  laneEnvironment,
  type ProvidedLaneStack,
  REGION,
} from './lane-context.js';

const log = (line: string) => console.log(line);

/** The lane's stack for one role: a test stack with fault injection running the lane worker, deployed directly. */
function laneFor(stackName: string, endpoint: string, dir: string): Lane {
  return {
    kind: 'moto',
    stack: {
      stackName,
      account: ACCOUNT,
      region: REGION,
      workerEntry: 'test/deploy/lane-worker.ts',
      directDeploy: true,
      // The queue's visibility timeout follows (6 × 15 s + 1 s): the receipt crash waits it out for its redelivery.
      workerTimeoutSeconds: 15,
    },
    env: laneEnvironment(endpoint),
    assembly: join(dir, `assembly-${stackName}`),
  };
}

/** A session of each function's execution role (the role the Lambda API reports), its grants made readable by moto. */
async function roleSessions(endpoint: string, deployed: DeployedStack): Promise<Record<FunctionRole, LaneCredentials>> {
  const sessions: Partial<Record<FunctionRole, LaneCredentials>> = {};
  for (const fn of Object.values(deployed.functions)) {
    await widenForMoto(endpoint, fn.executionRole.slice(fn.executionRole.lastIndexOf('/') + 1));
    sessions[fn.role] = await roleSession(fn.executionRole, `lane-${fn.role}`);
  }
  return sessions as Record<FunctionRole, LaneCredentials>;
}

/** The stack read back as Lambda runs it, moto's own mapping poller handed over to the lane's. */
async function readBack(lane: Lane): Promise<Omit<ProvidedLaneStack, 'adminUrl' | 'workerCredentials'>> {
  const { stackName } = lane.stack;
  const [template, deployed, incomplete] = await Promise.all([
    readFile(join(lane.assembly, `${stackName}.template.json`), 'utf8').then((text) => JSON.parse(text)),
    readDeployedStack(stackName),
    incompleteResources(stackName),
  ]);
  await handOverMapping(deployed.mapping);
  return { stackName, template, deployed, incomplete };
}

/**
 * The deployment lane's one deploy per run (.ci/deploy-lane; infra/README.md "Deployment lane"): both lane stacks
 * bootstrapped, synthesized and deployed to moto with the aws-cdk CLI, read back, and every function started under
 * AWS's Lambda emulator with the runtime client; the test files share them (each check on its own stack). Each
 * phase prints its time. Without the lane's tools (not run by .ci/deploy-lane) every test skips, saying why.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const endpoint = process.env.LEASEFENCE_DEPLOY_LANE_ENDPOINT;
  const rieBin = process.env.LEASEFENCE_RIE_BIN;
  const ricDir = process.env.LEASEFENCE_RIC_DIR;
  if (!endpoint || !rieBin || !ricDir) {
    project.provide('deployLane', {
      skipped:
        'LEASEFENCE_DEPLOY_LANE_ENDPOINT, LEASEFENCE_RIE_BIN and LEASEFENCE_RIC_DIR are set by .ci/deploy-lane (moto, the emulator, the runtime client)',
    });
    project.provide('deployLaneEndpoint', '');
    project.provide('deployLaneCredentials', { accessKeyId: '', secretAccessKey: '' });
    return async () => {};
  }
  Object.assign(process.env, { ...CREDENTIALS, AWS_REGION: REGION, AWS_ENDPOINT_URL: endpoint });
  const dir = await mkdtemp(join(tmpdir(), 'leasefence-deploy-lane-'));
  const lines: string[] = [];
  const running: EmulatedStack[] = [];
  const teardown = async () => {
    await Promise.all(running.map((stack) => stack.stop()));
    // The functions' own output (the emulator's and the runtime client's lines), kept for a failed run's diagnosis.
    const keep = process.env.LEASEFENCE_DEPLOY_LANE_LOG;
    if (keep) await writeFile(keep, `${lines.join('\n')}\n`);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const roles = Object.keys(LANE_STACKS) as LaneStackRole[];
    const lanes = roles.map((role) => laneFor(LANE_STACKS[role], endpoint, dir));
    await deployLanes(lanes, log);
    const read = await timed('read back (both stacks, at once)', log, () => Promise.all(lanes.map(readBack)));
    // The fault module's own table, as `leasefence start` creates a module's tables (not part of the stack).
    const dynamodb = new DynamoDBClient({});
    await dynamodb.send(new CreateTableCommand(ledgerTable));
    dynamodb.destroy();
    // Everything the lane sets up unauthenticated is done: from here on moto enforces IAM (infra/README.md says how
    // far), the functions run with their own roles' sessions, the lane's tooling with an admin user's key.
    const { admin, sessions } = await timed('IAM on (admin key, role sessions, moto auth)', log, async () => {
      const admin = await createAdminKey(endpoint);
      const sessions: Array<Record<FunctionRole, LaneCredentials>> = [];
      for (const stack of read) sessions.push(await roleSessions(endpoint, stack.deployed));
      await enableMotoAuth(endpoint);
      return { admin, sessions };
    });
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: admin.accessKeyId, AWS_SECRET_ACCESS_KEY: admin.secretAccessKey });
    const tools = { rieBin, ricDir, nodeBin: process.execPath };
    const aws = { region: REGION, endpoint, accessKeyId: 'testing', secretAccessKey: 'testing' };
    await timed('emulated functions started (both stacks, at once)', log, () =>
      Promise.all(
        read.map(async (stack, index) => {
          const started = await startEmulatedStack(stack.deployed, {
            tools,
            aws,
            credentials: sessions[index],
            account: ACCOUNT,
            dir: join(dir, `functions-${stack.stackName}`),
            log: (line) => lines.push(`[${stack.stackName}] ${line}`),
          });
          running.push(started);
          return started;
        }),
      ),
    );
    const stacks = Object.fromEntries(
      roles.map((role, index) => {
        const stack = read[index] as Omit<ProvidedLaneStack, 'adminUrl' | 'workerCredentials'>;
        const emulated = running.find((candidate) => candidate.admin.fn.name === stack.deployed.functions.admin.name);
        const workerCredentials = sessions[index]?.worker as LaneCredentials;
        return [role, { ...stack, adminUrl: String(emulated?.admin.url), workerCredentials }];
      }),
    ) as Record<LaneStackRole, ProvidedLaneStack>;
    project.provide('deployLane', { stacks });
    project.provide('deployLaneEndpoint', endpoint);
    project.provide('deployLaneCredentials', admin);
  } catch (error) {
    await teardown();
    throw error;
  }
  const testsStarted = Date.now();
  return async () => {
    log(`[deploy-lane] the test files took ${Math.round((Date.now() - testsStarted) / 1000)} s`);
    await teardown();
  };
}
