import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { QueueMessage } from '../../../lib/worker/worker-runtime.js';
import type { Checkpoint } from './reliability-jobs.js';
import type { ChildMessage, DeliveryOutcome, WorkerProcessConfig } from './worker-protocol.js';

const ENTRY = fileURLToPath(new URL('../processes/worker-process.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Generous: on a loaded 2-core machine a tsx process can take tens of seconds to start (no wall-time assert).
const START_TIMEOUT_MS = 120_000;

/** A checkpoint a job reached inside a worker process. */
type CheckpointEvent = Extract<ChildMessage, { type: 'checkpoint' }>;

/**
 * One worker process (node + tsx running worker-process.ts) driven over IPC. Signals are real: `pause` is
 * SIGSTOP, `resume` SIGCONT, `kill` SIGKILL. Every wait is bounded; a delivery to a process that died
 * resolves as an error outcome instead of hanging.
 */
class WorkerProcess {
  private readonly deliveries = new Map<number, (outcome: DeliveryOutcome) => void>();
  private readonly checkpoints: CheckpointEvent[] = [];
  private checkpointWaiter: (() => void) | undefined;
  private nextId = 0;
  private exited: Promise<void>;
  private tail: string[] = [];
  alive = true;

  private constructor(
    readonly workerId: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('exit', () => {
      this.alive = false;
      for (const resolve of this.deliveries.values())
        resolve({ ok: false, error: { name: 'ProcessExited', message: 'died' } });
      this.deliveries.clear();
    });
    child.on('message', (message: ChildMessage) => this.receive(message));
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        this.tail.push(chunk.toString('utf8'));
        if (this.tail.length > 50) this.tail.shift();
      });
    }
  }

  /** Forks a worker process and waits (bounded) until it reports ready. */
  static async start(config: WorkerProcessConfig): Promise<WorkerProcess> {
    const child = fork(ENTRY, [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, LF_WORKER_CONFIG: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const worker = new WorkerProcess(config.workerId, child);
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker ${config.workerId} did not start`)), START_TIMEOUT_MS);
      child.on('message', (message: ChildMessage) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => reject(new Error(`worker ${config.workerId} exited (${code}): ${worker.output()}`)));
    });
    await ready;
    return worker;
  }

  /** Hands one message to the worker's runtime; resolves with what it reported (or that it died). */
  deliver(message: QueueMessage): Promise<DeliveryOutcome> {
    if (!this.alive) return Promise.resolve({ ok: false, error: { name: 'ProcessExited', message: 'dead' } });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.deliveries.set(id, resolve);
      this.child.send({ type: 'deliver', id, message });
    });
  }

  /** The next checkpoint a job of this worker reached (bounded wait). */
  async nextCheckpoint(timeoutMs = 20_000): Promise<CheckpointEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.checkpoints.length === 0) {
      if (Date.now() > deadline || !this.alive)
        throw new Error(`no checkpoint from ${this.workerId}: ${this.output()}`);
      await new Promise<void>((resolve) => {
        this.checkpointWaiter = resolve;
        setTimeout(resolve, 100);
      });
    }
    return this.checkpoints.shift() as CheckpointEvent;
  }

  /** Lets the job stopped at `point` go on (queued in the IPC pipe while the process is stopped). */
  continueFrom(point: Checkpoint, operationId: string): void {
    if (this.alive) this.child.send({ type: 'continue', point, operationId });
  }

  /** Starts the worker's own poll loop on a queue (the event source mapping). */
  startPolling(queueUrl: string, visibilityTimeoutSeconds: number): void {
    this.child.send({ type: 'poll', queueUrl, visibilityTimeoutSeconds });
  }

  /** SIGSTOP: the process freezes wherever it is (timers, sockets and all). */
  pause(): void {
    this.signal('SIGSTOP');
  }

  /** SIGCONT. */
  resume(): void {
    this.signal('SIGCONT');
  }

  /** SIGKILL, then waits for the exit. */
  async kill(): Promise<void> {
    this.signal('SIGKILL');
    await this.exited;
  }

  /** The last lines the process printed, for failure messages. */
  output(): string {
    return this.tail.join('').slice(-4_000);
  }

  private signal(name: NodeJS.Signals): void {
    if (this.alive && this.child.pid !== undefined) process.kill(this.child.pid, name);
  }

  private receive(message: ChildMessage): void {
    if (message.type === 'delivered') {
      this.deliveries.get(message.id)?.(message.outcome);
      this.deliveries.delete(message.id);
    } else if (message.type === 'checkpoint') {
      this.checkpoints.push(message);
      this.checkpointWaiter?.();
    }
  }
}

/** Every worker process a test file started, so afterAll can kill them all, by id. */
class WorkerProcessPool {
  readonly workers: WorkerProcess[] = [];
  private count = 0;

  constructor(private readonly base: Omit<WorkerProcessConfig, 'workerId'>) {}

  /** Starts `n` more workers in parallel. */
  async start(n = 1): Promise<WorkerProcess[]> {
    const started = await Promise.all(
      Array.from({ length: n }, () => WorkerProcess.start({ ...this.base, workerId: `proc-${++this.count}` })),
    );
    this.workers.push(...started);
    return started;
  }

  /** SIGKILLs every worker still alive (also frees stopped ones) and waits for their exits. */
  async killAll(): Promise<void> {
    await Promise.all(this.workers.filter((worker) => worker.alive).map((worker) => worker.kill()));
  }
}

export { type CheckpointEvent, WorkerProcess, WorkerProcessPool };
