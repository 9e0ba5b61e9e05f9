import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerWithError, type ObservingProxy } from './observing-proxy.js';

/** The label of requests from clients the harness did not build (a job's own client, a shared client module). */
const PROCESS_LABEL = 'process';

/**
 * The environment every DynamoDB client built in this process reads when no endpoint is written in its code:
 * the AWS SDK v3 takes `AWS_ENDPOINT_URL_DYNAMODB` (resolved at a client's first request, then kept);
 * `DYNAMODB_ENDPOINT` is the convention many teams' client modules and this project's tests follow, and
 * `LEASEFENCE_DYNAMODB_ENDPOINT` the one leasefence's own handlers read (lib/config.ts).
 * Credentials and region are local placeholders for the run, so no real credentials are used or sent, and a
 * client configured to ignore configured endpoints is not allowed to.
 */
function runEnvironment(endpoint: string, env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    DYNAMODB_ENDPOINT: endpoint,
    LEASEFENCE_DYNAMODB_ENDPOINT: endpoint,
    AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: undefined,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_REGION: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
  };
}

/**
 * One loopback listener for the whole process, so a client that resolved its endpoint during one conformance run
 * still reaches the engine boundary in the next: it routes each request to the proxy of the run in progress
 * (labelled `process`), or refuses it between runs. Unref'd: it never keeps the process alive.
 */
class ProcessFrontDoor {
  private static door: Promise<ProcessFrontDoor> | undefined;
  private route: ObservingProxy | undefined;

  private constructor(readonly endpoint: string) {}

  static open(): Promise<ProcessFrontDoor> {
    ProcessFrontDoor.door ??= new Promise((resolve, reject) => {
      let door: ProcessFrontDoor | undefined;
      const server = http.createServer((request, response) => {
        const route = door?.route;
        if (!route) {
          request.resume();
          answerWithError(response, 'NoConformanceRun', 'no leasefence conformance run is in progress');
          return;
        }
        void route.handle(PROCESS_LABEL, request, response).catch(() => request.socket.destroy());
      });
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        door = new ProcessFrontDoor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
        resolve(door);
      });
    });
    return ProcessFrontDoor.door;
  }

  routeTo(proxy: ObservingProxy | undefined): void {
    this.route = proxy;
  }
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * For a process that exists to run conformance (`leasefence check`): points every DynamoDB client the process
 * builds itself at the front door from now on, before the job module is imported, so a client whose endpoint is
 * read at import time (`endpoint: process.env.DYNAMODB_ENDPOINT`) is observed too. Not restored: the door
 * outlives every run, and between runs it answers with an error instead of reaching any engine.
 */
async function observeProcessClientsFromNow(): Promise<void> {
  const door = await ProcessFrontDoor.open();
  apply(runEnvironment(door.endpoint, process.env));
}

/**
 * Runs `work` with every DynamoDB client the process builds itself pointed at `proxy` (through the front door and
 * the environment above), restoring the environment afterwards. Runs in one process take turns: the environment
 * is process-wide, so two at once could not tell their requests apart.
 */
function withProcessClientsObserved<T>(proxy: ObservingProxy, work: () => Promise<T>): Promise<T> {
  const turn = queue.then(async () => {
    const door = await ProcessFrontDoor.open();
    const settings = runEnvironment(door.endpoint, process.env);
    const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
    apply(settings);
    door.routeTo(proxy);
    try {
      return await work();
    } finally {
      door.routeTo(undefined);
      apply(saved);
    }
  });
  queue = turn.catch(() => undefined);
  return turn;
}

function apply(settings: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

export { observeProcessClientsFromNow, PROCESS_LABEL, withProcessClientsObserved };
