import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { DeployedFunction } from './read-back.js';
import type { InvocationResult } from './sqs-event.js';

const run = promisify(execFile);

/** The built tools: AWS's emulator binary, the runtime client's package folder, and the node that runs it. */
interface RuntimeTools {
  readonly rieBin: string;
  readonly ricDir: string;
  readonly nodeBin: string;
}

/** How the emulated functions reach the AWS APIs (the emulator's endpoint and test credentials). */
interface FunctionAws {
  readonly region: string;
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** A role session's token (the function then runs with its execution role's credentials, as on Lambda). */
  readonly sessionToken?: string;
}

/** `https://host/path/<key>?signature` ▶ `<key>`: the asset's S3 key (moto's host in that URL does not resolve). */
function assetKeyOf(codeLocation: string): string {
  const path = new URL(codeLocation).pathname;
  const key = path.slice(path.lastIndexOf('/') + 1);
  if (!key.endsWith('.zip')) throw new Error(`Code.Location ${codeLocation} does not end in an asset's .zip key`);
  return key;
}

/**
 * Downloads a function's deployed code from the CDK asset bucket by its key and unpacks it into `<dir>/<role>`
 * (the task root). Bytes whose SHA-256 differs from the function's CodeSha256 ▶ Error (not the deployed code).
 */
async function fetchDeployedCode(fn: DeployedFunction, bucket: string, dir: string): Promise<string> {
  const s3 = new S3Client({ forcePathStyle: true });
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: assetKeyOf(fn.codeLocation) }));
    const bytes = Buffer.from(
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    const sha = createHash('sha256').update(bytes).digest('base64');
    if (sha !== fn.codeSha256)
      throw new Error(`${fn.name}: the asset's SHA-256 ${sha} is not CodeSha256 ${fn.codeSha256}`);
    const taskRoot = join(dir, fn.role);
    await mkdir(taskRoot, { recursive: true });
    await writeFile(`${taskRoot}.zip`, bytes);
    await run('unzip', ['-q', '-o', `${taskRoot}.zip`, '-d', taskRoot]);
    return taskRoot;
  } finally {
    s3.destroy();
  }
}

/** Ports this process handed out: environments started at once must never be given the same one. */
const handedOut = new Set<number>();

/**
 * A loopback port free now and never handed out before by this process (the OS may offer a port again once its
 * probe closed, before the emulator that was given it binds: two environments started at once would share it).
 */
async function freePort(): Promise<number> {
  for (;;) {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    await new Promise((done) => server.close(done));
    if (!address || typeof address === 'string') throw new Error('no loopback port');
    if (!handedOut.has(address.port)) {
      handedOut.add(address.port);
      return address.port;
    }
  }
}

/** One emulated execution environment of a function: AWS's emulator running the runtime client on the task root. */
interface EmulatedFunction {
  readonly fn: DeployedFunction;
  /** Where the emulator takes invocations (loopback). */
  readonly url: string;
  invoke(event: unknown): Promise<InvocationResult>;
  stop(): Promise<void>;
}

/** The environment Lambda gives the function: its configured variables, the reserved ones, the AWS endpoint. */
function lambdaEnvironment(fn: DeployedFunction, taskRoot: string, aws: FunctionAws): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...fn.environment,
    _HANDLER: fn.handler,
    LAMBDA_TASK_ROOT: taskRoot,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_TIMEOUT: String(fn.timeoutSeconds),
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_REGION: aws.region,
    AWS_DEFAULT_REGION: aws.region,
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ACCESS_KEY_ID: aws.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
    ...(aws.sessionToken ? { AWS_SESSION_TOKEN: aws.sessionToken } : {}),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/**
 * Invokes an emulated environment at its invocation `url` (what Lambda's Invoke API does): a function error (the
 * emulator's status, `X-Amz-Function-Error`, an error object, or a non-JSON answer such as a timeout) or the response.
 */
async function invokeEmulated(url: string, event: unknown): Promise<InvocationResult> {
  const answer = await fetch(url, { method: 'POST', body: JSON.stringify(event) });
  const text = await answer.text();
  let response: unknown = null;
  try {
    response = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    // Not JSON: the emulator's own answer (`Task timed out after 60.00 seconds`), never a handler's response.
    return { functionError: true };
  }
  const errored =
    answer.status !== 200 ||
    answer.headers.has('x-amz-function-error') ||
    (typeof response === 'object' && response !== null && 'errorType' in response);
  return errored ? { functionError: true } : { functionError: false, response };
}

/** Starts one emulated environment of `fn` on loopback ports (both addresses given: it binds 0.0.0.0 otherwise). */
async function startEmulatedFunction(
  fn: DeployedFunction,
  taskRoot: string,
  tools: RuntimeTools,
  aws: FunctionAws,
  log: (line: string) => void,
): Promise<EmulatedFunction> {
  const [port, apiPort] = [await freePort(), await freePort()];
  const ric = JSON.parse(await readFile(join(tools.ricDir, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const ricBin = join(tools.ricDir, Object.values(ric.bin)[0] as string);
  const child: ChildProcess = spawn(
    tools.rieBin,
    [
      '--runtime-interface-emulator-address',
      `127.0.0.1:${port}`,
      '--runtime-api-address',
      `127.0.0.1:${apiPort}`,
      tools.nodeBin,
      ricBin,
      fn.handler,
    ],
    { cwd: taskRoot, env: lambdaEnvironment(fn, taskRoot, aws), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log(`[${fn.role}] ${line}`);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const url = `http://127.0.0.1:${port}/2015-03-31/functions/function/invocations`;
  await waitForPort(port, child);
  return {
    fn,
    url,
    invoke: (event) => invokeEmulated(url, event),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`aws-lambda-rie exited with ${child.exitCode}`);
    const open = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (open) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`aws-lambda-rie did not listen on 127.0.0.1:${port} within 10 s`);
}

export {
  assetKeyOf,
  type EmulatedFunction,
  type FunctionAws,
  fetchDeployedCode,
  invokeEmulated,
  lambdaEnvironment,
  type RuntimeTools,
  startEmulatedFunction,
};
