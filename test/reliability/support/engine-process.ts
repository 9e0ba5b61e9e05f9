import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../processes/dynalite-process.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Generous: on a loaded 2-core machine a tsx process can take tens of seconds to start (no wall-time assert).
const START_TIMEOUT_MS = 120_000;
/** Starts tried while the port of a killed engine is still being released (bounded). */
const PORT_TRIES = 50;

type EngineMessage = { type: 'ready'; endpoint: string } | { type: 'failed'; code: string };

/** Forks one engine process on `path` and `port`; resolves with it once it listens, or with why it could not. */
function forkEngine(path: string, port: number): Promise<{ child: ChildProcess; endpoint?: string; code?: string }> {
  const child = fork(ENTRY, [], {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, LF_DYNALITE_PATH: path, LF_DYNALITE_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the DynamoDB engine on ${path} did not start in ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.on('message', (message: EngineMessage) => {
      clearTimeout(timer);
      resolve(message.type === 'ready' ? { child, endpoint: message.endpoint } : { child, code: message.code });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, code: `exit ${code}` });
    });
  });
}

/**
 * dynalite with on-disk persistence in a process of its own, on one loopback port for its whole life: `kill` is
 * SIGKILL (nothing flushed, nothing closed), `start` brings it back on the same port, on the same data or on
 * another folder (a copy taken earlier: a failover), `pause`/`resume` are SIGSTOP/SIGCONT.
 */
class DynamoDBEngine {
  private child: ChildProcess | undefined;

  private constructor(
    readonly endpoint: string,
    private path: string,
    child: ChildProcess,
  ) {
    this.child = child;
  }

  /** Starts the engine on `path` on a free port. */
  static async start(path: string): Promise<DynamoDBEngine> {
    const started = await forkEngine(path, 0);
    if (!started.endpoint) throw new Error(`the DynamoDB engine did not start: ${started.code}`);
    return new DynamoDBEngine(started.endpoint, path, started.child);
  }

  /** The folder the running (or last) engine keeps its data in. */
  get dataPath(): string {
    return this.path;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL, then waits for the exit. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }

  /** Starts the engine again on the same port, on `path` (default: the data it had). */
  async restart(path = this.path): Promise<void> {
    if (this.running) throw new Error('the engine is still running: kill it first');
    const port = Number(new URL(this.endpoint).port);
    for (let attempt = 1; attempt <= PORT_TRIES; attempt += 1) {
      const started = await forkEngine(path, port);
      if (started.endpoint) {
        this.child = started.child;
        this.path = path;
        return;
      }
      if (started.code !== 'EADDRINUSE') throw new Error(`the DynamoDB engine did not restart: ${started.code}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`port ${port} stayed in use after ${PORT_TRIES} tries`);
  }

  /** SIGSTOP: requests hang in the network until resume. */
  pause(): void {
    if (this.running && this.child?.pid !== undefined) process.kill(this.child.pid, 'SIGSTOP');
  }

  /** SIGCONT. */
  resume(): void {
    if (this.running && this.child?.pid !== undefined) process.kill(this.child.pid, 'SIGCONT');
  }
}

export { DynamoDBEngine };
