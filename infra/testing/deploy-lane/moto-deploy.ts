import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { cdk, cdkArgs, type LaneStack } from './cdk.js';
import { rewriteTemplateForMoto, secretsToCreate, type Template } from './moto-template.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random alphanumeric value of `length` characters (the template's GenerateSecretString, punctuation excluded). */
function randomSecret(length: number): string {
  return Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/**
 * Deploys a synthesized assembly to moto with `cdk deploy --app`: first the template's secrets through the Secrets
 * Manager API, then the template rewritten for what moto cannot create (moto-template.ts).
 */
async function deployToMoto(stack: LaneStack, assembly: string, env: NodeJS.ProcessEnv): Promise<string> {
  const endpoint = String(env.AWS_ENDPOINT_URL);
  const file = join(assembly, `${stack.stackName}.template.json`);
  const template = JSON.parse(await readFile(file, 'utf8')) as Template;
  const secrets = new SecretsManagerClient({});
  const secretArns: Record<string, string> = {};
  try {
    for (const secret of secretsToCreate(template, stack.stackName)) {
      const created = await secrets.send(
        new CreateSecretCommand({
          Name: secret.name,
          Description: secret.description,
          SecretString: randomSecret(secret.length),
        }),
      );
      secretArns[secret.logicalId] = String(created.ARN);
    }
  } finally {
    secrets.destroy();
  }
  const input = { stackName: stack.stackName, endpoint, secretArns, account: stack.account, region: stack.region };
  await writeFile(file, JSON.stringify(rewriteTemplateForMoto(template, input)));
  return cdk(cdkArgs('deploy', stack, assembly), env);
}

export { deployToMoto, randomSecret };
