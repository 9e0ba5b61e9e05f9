import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RunningEngine, startDynalite } from '../../../infra/local/engines.js';
import { attachBenchEngine, type BenchEngine, type LeasefenceTables } from './attached-engine.js';

/**
 * The benchmarks measure leasefence against the engine itself, as BENCHMARKS.md reports it: without the guarded
 * endpoint the local stack and the tests put in front (one more loopback hop per request).
 */
const BENCH_ENGINE = { guard: false } as const;

const ENGINE_CHILD = fileURLToPath(new URL('../engine/child.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** dynalite in a child process (its own CPU account); resolves once it listens. */
function startEngineProcess(): Promise<RunningEngine & { pid: number }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ENGINE_CHILD], {
      cwd: REPO_ROOT,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let buffered = '';
    child.once('exit', (code) => reject(new Error(`engine process exited with ${code} before listening`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const line = buffered.split('\n').find((candidate) => candidate.startsWith('{'));
      if (!line) return;
      const { endpoint, pid } = JSON.parse(line) as { endpoint: string; pid: number };
      resolve({
        endpoint,
        pid,
        stop: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.stdin?.end();
          }),
      });
    });
  });
}

/**
 * Starts dynalite on a free loopback port (in this process, or with `process: true` in a child process, so
 * this process's CPU is the worker's alone), or wraps an endpoint someone else started.
 */
async function startBenchEngine(options: { endpoint?: string; process?: boolean } = {}): Promise<BenchEngine> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  if (options.endpoint) return attachBenchEngine({ endpoint: options.endpoint });
  const engine: RunningEngine & { pid?: number } = options.process
    ? await startEngineProcess()
    : await startDynalite(BENCH_ENGINE);
  return attachBenchEngine(engine);
}

export { BENCH_ENGINE, type BenchEngine, type LeasefenceTables, startBenchEngine };
