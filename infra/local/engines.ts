import type { AddressInfo } from 'node:net';
import { leasefenceError } from '../../lib/errors.js';
import { startGuardedEndpoint } from './guarded-endpoint.js';

/** The embedded engines are optional peer dependencies: only the local stack and the test harness need them. */
class EngineNotInstalledError extends leasefenceError('local.engine_not_installed') {
  constructor(readonly packageName: string) {
    super(
      `the embedded engines are not installed: npm install --save-dev dynalite@^4 fauxqs@^1 (missing: ${packageName}). They are needed only by \`leasefence start\`, \`demo\`, \`check\` and leasefence/testing.`,
    );
  }
}

/** Imports an optional engine package, or says exactly how to install it. */
async function importEngine<Module>(packageName: 'dynalite' | 'fauxqs'): Promise<Module> {
  try {
    return (await import(packageName)) as Module;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new EngineNotInstalledError(packageName);
    throw error;
  }
}

/** A running local engine: its loopback endpoint and how to stop it. */
interface RunningEngine {
  endpoint: string;
  stop(): Promise<void>;
}

/** Where an engine listens: `port` (0 or absent: any free one) on loopback, behind the guard unless `guard` is false. */
interface EngineOptions {
  port?: number;
  /**
   * Default true: clients reach the engine through a guarded endpoint (guarded-endpoint.ts) that refuses what a web
   * page could send (foreign Origin or Host). False only to measure the engine itself (benchmarks): the engine then
   * answers any page open in a browser on this machine.
   */
  guard?: boolean;
}

/** Options for the embedded DynamoDB engine. */
interface DynaliteOptions extends EngineOptions {
  /** Folder for on-disk persistence (LevelDB); in memory when absent. */
  path?: string;
}

/**
 * Puts the guarded endpoint on `options.port` in front of an engine already listening on `enginePort` (or, unguarded,
 * uses the engine's port as is). If the endpoint cannot listen, the engine is stopped and the error propagates.
 */
async function publish(
  enginePort: number,
  stopEngine: () => Promise<void>,
  options: EngineOptions,
): Promise<RunningEngine> {
  if (options.guard === false) return { endpoint: `http://127.0.0.1:${enginePort}`, stop: stopEngine };
  const guarded = await startGuardedEndpoint(enginePort, options.port ?? 0).catch(async (error: unknown) => {
    await stopEngine().catch(() => {});
    throw error;
  });
  return {
    endpoint: `http://127.0.0.1:${guarded.port}`,
    stop: async () => {
      await guarded.stop();
      await stopEngine();
    },
  };
}

/** The port an engine binds: the requested one when unguarded, else any free one behind the guarded endpoint. */
function enginePort(options: EngineOptions): number {
  return options.guard === false ? (options.port ?? 0) : 0;
}

/**
 * Starts dynalite (DynamoDB API) in-process on loopback behind the guarded endpoint (see EngineOptions); port 0
 * picks a free one. A taken port rejects with EADDRINUSE.
 */
async function startDynalite(options: DynaliteOptions = {}): Promise<RunningEngine> {
  const { default: dynalite } = await importEngine<typeof import('dynalite')>('dynalite');
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path ? { path: options.path } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(enginePort(options), '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return publish(port, () => new Promise<void>((resolve) => server.close(() => resolve())), options);
}

/**
 * Starts fauxqs (SQS API) in-process bound to 127.0.0.1 only (its own `startFauxqs` listens on every
 * interface) behind the guarded endpoint (see EngineOptions); port 0 picks a free one. Messages live in memory.
 * A taken port rejects with EADDRINUSE.
 */
async function startSqsEngine(options: EngineOptions = {}): Promise<RunningEngine> {
  const { buildApp } = await importEngine<typeof import('fauxqs')>('fauxqs');
  const app = buildApp({ logger: false, host: '127.0.0.1' });
  try {
    await app.listen({ port: enginePort(options), host: '127.0.0.1' });
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  return publish(port, () => app.close(), options);
}

export {
  type DynaliteOptions,
  EngineNotInstalledError,
  type EngineOptions,
  type RunningEngine,
  startDynalite,
  startSqsEngine,
};
