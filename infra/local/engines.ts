import type { AddressInfo } from 'node:net';
import { leasefenceError } from '../../lib/errors.js';
import { type EngineSocket, engineSocket } from './engine-socket.js';
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

/**
 * Where an engine listens: behind the guard (default) the engine is reachable over no TCP port at all, only the
 * guarded endpoint on `port` (0 or absent: any free one) on loopback; unguarded (`guard: false`), the engine itself
 * on loopback `port`.
 */
interface EngineOptions {
  port?: number;
  /**
   * Default true: the engine listens on a Unix domain socket in a private folder (a named pipe on Windows), and
   * clients reach it through a guarded loopback endpoint (guarded-endpoint.ts) that refuses what a web page could
   * send (foreign Origin, cross-site Sec-Fetch-Site, foreign Host). False only to measure the engine itself
   * (benchmarks): the engine then listens on a TCP port and answers any page open in a browser on this machine.
   */
  guard?: boolean;
}

/** Options for the embedded DynamoDB engine. */
interface DynaliteOptions extends EngineOptions {
  /** Folder for on-disk persistence (LevelDB); in memory when absent. */
  path?: string;
}

/** How to start and stop an engine: listen on a TCP port or a socket path, and close. */
interface EngineServer {
  listen(target: { port: number } | { path: string }): Promise<void>;
  /** The TCP port it listens on (after a TCP listen). */
  port(): number;
  close(): Promise<void>;
}

/**
 * Starts the engine: unguarded on TCP `options.port`; guarded on a private socket with the guarded endpoint on
 * `options.port` in front. If anything fails to listen, whatever started is stopped and the error propagates (a
 * taken port: EADDRINUSE).
 */
async function publish(engine: EngineServer, options: EngineOptions): Promise<RunningEngine> {
  if (options.guard === false) {
    await engine.listen({ port: options.port ?? 0 }).catch(async (error: unknown) => {
      await engine.close().catch(() => {});
      throw error;
    });
    return { endpoint: `http://127.0.0.1:${engine.port()}`, stop: () => engine.close() };
  }
  const socket: EngineSocket = await engineSocket();
  const stopEngine = async () => {
    await engine.close().catch(() => {});
    await socket.remove();
  };
  try {
    await engine.listen({ path: socket.path });
    const guarded = await startGuardedEndpoint({ socketPath: socket.path }, options.port ?? 0);
    return {
      endpoint: `http://127.0.0.1:${guarded.port}`,
      stop: async () => {
        await guarded.stop();
        await stopEngine();
      },
    };
  } catch (error) {
    await stopEngine();
    throw error;
  }
}

/**
 * Starts dynalite (DynamoDB API) in-process behind the guarded endpoint (see EngineOptions); port 0 picks a free
 * one. A taken port rejects with EADDRINUSE.
 */
async function startDynalite(options: DynaliteOptions = {}): Promise<RunningEngine> {
  const { default: dynalite } = await importEngine<typeof import('dynalite')>('dynalite');
  // dynalite returns a node:http Server: its documented listen() takes a port or a socket path.
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path ? { path: options.path } : {}),
  });
  return publish(
    {
      listen: (target) =>
        new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          const listening = () => {
            server.off('error', reject);
            resolve();
          };
          if ('path' in target) server.listen(target.path, listening);
          else server.listen(target.port, '127.0.0.1', listening);
        }),
      port: () => (server.address() as AddressInfo).port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    },
    options,
  );
}

/**
 * Starts fauxqs (SQS and SNS APIs) in-process behind the guarded endpoint (see EngineOptions; its own `startFauxqs`
 * listens on every interface, so this uses `buildApp` and Fastify's documented listen, on a socket path or
 * 127.0.0.1); port 0 picks a free one. Messages live in memory. A taken port rejects with EADDRINUSE.
 */
async function startSqsEngine(options: EngineOptions = {}): Promise<RunningEngine> {
  const { buildApp } = await importEngine<typeof import('fauxqs')>('fauxqs');
  const app = buildApp({ logger: false, host: '127.0.0.1' });
  return publish(
    {
      listen: async (target) => {
        await app.listen('path' in target ? { path: target.path } : { port: target.port, host: '127.0.0.1' });
      },
      port: () => (app.server.address() as AddressInfo).port,
      close: () => app.close(),
    },
    options,
  );
}

export {
  type DynaliteOptions,
  EngineNotInstalledError,
  type EngineOptions,
  type RunningEngine,
  startDynalite,
  startSqsEngine,
};
