import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { PROJECT_ROOT } from './cdk.js';
import {
  type EmulatedFunction,
  type FunctionAws,
  fetchDeployedCode,
  type RuntimeTools,
  startEmulatedFunction,
} from './function-runtime.js';
import type { LaneCredentials } from './moto-auth.js';
import type { DeployedStack, FunctionRole } from './read-back.js';
import { rateIntervalMs } from './sqs-event.js';
import { MappingPoller } from './sqs-poller.js';

/** How many execution environments of the worker the lane runs (a paused attempt must not hold up the takeover). */
const WORKER_ENVIRONMENTS = 4;

/** The deployed functions running under the emulator, fed by the poller and the schedule. */
interface EmulatedStack {
  readonly worker: readonly EmulatedFunction[];
  readonly sweeper: EmulatedFunction;
  readonly admin: EmulatedFunction;
  readonly poller: MappingPoller;
  /** Sweeper invocations the schedule made, and how many of them failed. */
  readonly sweeps: { runs: number; errors: number };
  stop(): Promise<void>;
}

/** The event EventBridge sends a scheduled rule's target. */
function scheduledEvent(account: string, region: string, ruleArn: string): Record<string, unknown> {
  return {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account,
    time: new Date().toISOString(),
    region,
    resources: [ruleArn],
    detail: {},
  };
}

/**
 * Downloads each deployed function's code and runs it under AWS's emulator with the runtime client: the worker fed
 * by a poller that follows its event source mapping, the sweeper invoked at its schedule's rate. The SDK comes from
 * the checkout's node_modules above the task roots, as Lambda's runtime provides it. `credentials` (a session of each
 * function's execution role) replace `aws`'s key for that function, as Lambda gives a function its role's.
 */
async function startEmulatedStack(
  deployed: DeployedStack,
  options: {
    tools: RuntimeTools;
    aws: FunctionAws;
    credentials?: Readonly<Record<FunctionRole, LaneCredentials>>;
    account: string;
    dir: string;
    log: (line: string) => void;
  },
): Promise<EmulatedStack> {
  const { tools, aws, dir, log } = options;
  await mkdir(dir, { recursive: true });
  await symlink(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules')).catch(() => {});
  const bucket = `cdk-hnb659fds-assets-${options.account}-${aws.region}`;
  const [workerRoot, sweeperRoot, adminRoot] = await Promise.all(
    (['worker', 'sweeper', 'admin'] as const).map((role) => fetchDeployedCode(deployed.functions[role], bucket, dir)),
  );
  const start = (role: 'worker' | 'sweeper' | 'admin', root: string) =>
    startEmulatedFunction(deployed.functions[role], root, tools, { ...aws, ...options.credentials?.[role] }, log);
  // Every environment starts at once; one that fails to start stops the others before the error goes up.
  const starting = [
    ...Array.from({ length: WORKER_ENVIRONMENTS }, () => start('worker', String(workerRoot))),
    start('sweeper', String(sweeperRoot)),
    start('admin', String(adminRoot)),
  ];
  const settled = await Promise.allSettled(starting);
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const refused = settled.find((result) => result.status === 'rejected');
  if (refused) {
    await Promise.all(started.map((fn) => fn.stop()));
    throw refused.reason;
  }
  const worker = started.slice(0, WORKER_ENVIRONMENTS);
  const [sweeper, admin] = started.slice(WORKER_ENVIRONMENTS) as [EmulatedFunction, EmulatedFunction];
  const sqs = new SQSClient({ region: aws.region });
  const queueUrl = String(deployed.functions.worker.environment.LEASEFENCE_QUEUE_URL);
  const poller = new MappingPoller(sqs, queueUrl, deployed.mapping, worker, aws.region, log);
  poller.start();
  const sweeps = { runs: 0, errors: 0 };
  const ruleArn = `arn:aws:events:${aws.region}:${options.account}:rule/sweeper`;
  let sweeping = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweeping.then(async () => {
      const result = await sweeper.invoke(scheduledEvent(options.account, aws.region, ruleArn)).catch((error) => {
        log(`[sweeper] invocation failed: ${(error as Error).message}`);
        return { functionError: true } as const;
      });
      sweeps.runs += 1;
      if (result.functionError) sweeps.errors += 1;
    });
  }, rateIntervalMs(deployed.schedule));
  return {
    worker,
    sweeper,
    admin,
    poller,
    sweeps,
    async stop() {
      clearInterval(timer);
      await poller.stop();
      await sweeping.catch(() => {});
      await Promise.all([...worker, sweeper, admin].map((fn) => fn.stop()));
      sqs.destroy();
    },
  };
}

export { type EmulatedStack, scheduledEvent, startEmulatedStack, WORKER_ENVIRONMENTS };
