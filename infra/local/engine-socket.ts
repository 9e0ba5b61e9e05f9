import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where a guarded engine listens instead of a TCP port, and how to clean it up. */
interface EngineSocket {
  /** A Unix domain socket path (a named pipe on Windows): no web page can address it, as it has no TCP port. */
  path: string;
  /** Removes the socket's private folder (the socket file with it); never throws. */
  remove(): Promise<void>;
}

/**
 * A fresh socket path for one engine: `engine.sock` in a new folder under the system temp dir that mkdtemp creates
 * with mode 0700, so only this user's processes can connect (and no browser at all: a page reaches TCP ports
 * only). On Windows a named pipe with a random name. A folder that cannot be created throws (nothing listens).
 */
async function engineSocket(): Promise<EngineSocket> {
  if (process.platform === 'win32') {
    return { path: `\\\\.\\pipe\\leasefence-engine-${randomUUID()}`, remove: async () => {} };
  }
  const dir = await mkdtemp(join(tmpdir(), 'leasefence-engine-'));
  return { path: join(dir, 'engine.sock'), remove: () => rm(dir, { recursive: true, force: true }) };
}

export { type EngineSocket, engineSocket };
