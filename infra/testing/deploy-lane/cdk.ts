import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The checkout the CDK app (cdk.json) lives in. */
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What the lane deploys: a stack marked test, with the check's fault injection, running `workerEntry`. */
interface LaneStack {
  readonly stackName: string;
  readonly account: string;
  readonly region: string;
  /** The worker entry (`-c workerEntry`), relative to the checkout; absent: the example worker. */
  readonly workerEntry?: string;
  /**
   * `cdk deploy --method direct` (CreateStack, no change set): moto creates a stack from a change set with an empty
   * template and so answers no outputs, which the CLI's `--stack` reads. Default: the CLI's change set.
   */
  readonly directDeploy?: boolean;
  /** The worker's timeout (`-c workerTimeoutSeconds`), and so the queue's visibility timeout; default the construct's. */
  readonly workerTimeoutSeconds?: number;
}

/** `cdk` arguments for one step; the app's context always marks the stack `test` with fault injection on. */
function cdkArgs(step: 'bootstrap' | 'synth' | 'deploy' | 'destroy', stack: LaneStack, assembly: string): string[] {
  const context = [
    ['stackName', stack.stackName],
    ['environment', 'test'],
    ['faultInjection', 'true'],
    ...(stack.workerEntry ? [['workerEntry', stack.workerEntry]] : []),
    ...(stack.workerTimeoutSeconds ? [['workerTimeoutSeconds', String(stack.workerTimeoutSeconds)]] : []),
  ].flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  const common = ['--no-notices', '--no-version-reporting'];
  const method = stack.directDeploy ? ['--method', 'direct'] : [];
  switch (step) {
    case 'bootstrap':
      return ['bootstrap', `aws://${stack.account}/${stack.region}`, ...common];
    case 'synth':
      return ['synth', '-q', '-o', assembly, ...context, ...common];
    case 'deploy':
      return ['deploy', '--app', assembly, '--require-approval', 'never', ...method, stack.stackName, ...common];
    case 'destroy':
      return ['destroy', '--app', assembly, '--force', stack.stackName, ...common];
  }
}

/**
 * Runs the project's `cdk` CLI (aws-cdk from node_modules), by default in the checkout (its cdk.json names the app); a
 * non-zero exit ▶ Error with its output.
 */
async function cdk(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string = PROJECT_ROOT): Promise<string> {
  try {
    const { stdout, stderr } = await run(join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'), args, {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`cdk ${args[0]} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/**
 * `cdk bootstrap aws://<account>/<region>` run outside the checkout: inside it (a cdk.json naming an app) the CLI
 * synthesizes the whole app first, even for an environment given by name (measured: as long as a `cdk synth`), and
 * the bootstrap needs nothing of it. `dir` is any directory without a cdk.json.
 */
function cdkBootstrap(stack: LaneStack, env: NodeJS.ProcessEnv, dir: string): Promise<string> {
  return cdk(cdkArgs('bootstrap', stack, ''), env, dir);
}

export { cdk, cdkArgs, cdkBootstrap, type LaneStack, PROJECT_ROOT };
