import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { buildApp } from 'fauxqs';

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

export { type DynaliteOptions, type RunningEngine, startDynalite, startSqsEngine };
