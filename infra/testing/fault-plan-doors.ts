import { readFile, rm, writeFile } from 'node:fs/promises';
import type { FaultPlanSource } from '../../lib/fault-injection/plan.js';
import type { FaultPlanDoor } from './stack-probe.js';

/** A plan value that never parses: what a disarmed secret holds (Secrets Manager keeps no empty value). */
const DISARMED = '{"v":0}';

/**
 * The local stack's fault plan: a file in its folder, written by the operator's `check --stack local` and read by
 * its worker. Whoever can write the stack's folder can run the stack, so it is as trusted as the stack itself.
 */
function localPlanDoor(path: string): FaultPlanDoor {
  return {
    label: `file ${path}`,
    arm: (plan) => writeFile(path, plan, { encoding: 'utf8', mode: 0o600 }),
    disarm: () => rm(path, { force: true }),
  };
}

/** The local worker's side of localPlanDoor: the file's text, or undefined while there is none. */
function localPlanSource(path: string): FaultPlanSource {
  return () => readFile(path, 'utf8').catch(() => undefined);
}

/** What the CLI uses of the Secrets Manager client (a dependency already: the identifier key). */
interface SecretWriter {
  send(command: unknown): Promise<unknown>;
}

/**
 * A deployed stack's fault plan: the construct's fault-plan secret (only the operator's credentials may write it;
 * the worker, sweeper and admin roles may only read it). Disarming writes a value no worker parses.
 */
async function secretPlanDoor(secretArn: string, region: string | undefined): Promise<FaultPlanDoor> {
  const { PutSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client: SecretWriter = new SecretsManagerClient(region ? { region } : {});
  const put = async (value: string) => {
    await client.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: value }));
  };
  return { label: `secret ${secretArn}`, arm: put, disarm: () => put(DISARMED) };
}

export { localPlanDoor, localPlanSource, secretPlanDoor };
