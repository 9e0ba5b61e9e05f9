import type { AddressInfo } from 'node:net';
import { leasefenceError } from '../../lib/errors.js';

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

/** Options for the embedded DynamoDB engine. */
interface DynaliteOptions {
  port?: number;
  /** Folder for on-disk persistence (LevelDB); in memory when absent. */
  path?: string;
}

/** Starts dynalite (DynamoDB API) in-process on loopback; port 0 picks a free one. */
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
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Starts fauxqs (SQS API) in-process bound to 127.0.0.1 only (its own `startFauxqs` listens on every
 * interface); port 0 picks a free one. Messages live in memory. A taken port rejects with EADDRINUSE.
 */
async function startSqsEngine(options: { port?: number } = {}): Promise<RunningEngine> {
  const { buildApp } = await importEngine<typeof import('fauxqs')>('fauxqs');
  const app = buildApp({ logger: false, host: '127.0.0.1' });
  try {
    await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => app.close() };
}

export { type DynaliteOptions, EngineNotInstalledError, type RunningEngine, startDynalite, startSqsEngine };
