import { ANY_PORTS } from '../../infra/cli/local-options.js';
import { type LocalStackOptions, type RunningLocalStack, startLocalStack } from '../../infra/local/stack.js';
import { tempLocalDir } from './cli-runner.js';

/**
 * A local stack for a browser or HTTP test: in memory, on free ports, one poller, no sweep during the test, silent,
 * and no state file (so it never takes the place of a developer's running stack). `jobs`: another jobs module.
 */
function startQuietStack(dir: string, options: Pick<LocalStackOptions, 'jobs'> = {}): Promise<RunningLocalStack> {
  return startLocalStack({
    ...options,
    dir,
    memory: true,
    ports: ANY_PORTS,
    pollers: 1,
    sweepIntervalMs: 3_600_000,
    verbose: false,
    writeStateFile: false,
    log: () => {},
  });
}

/** A temp folder of a local stack's state file (`--local-dir` for the CLI), and how to remove it. */
type TempLocalDir = Awaited<ReturnType<typeof tempLocalDir>>;

/** What a stack with a state file takes besides the defaults: its pollers, and any other setting (jobs, shards, faults). */
type StateFileStackOptions = Pick<LocalStackOptions, 'pollers'> &
  Partial<Omit<LocalStackOptions, 'dir' | 'writeStateFile' | 'log'>>;

/**
 * A local stack in this process as `npm start` runs it, for a CLI test: its state file in a fresh temp folder (the CLI
 * finds it with `--local-dir`), in memory, on free ports, no sweep during the test, silent. Stop it with
 * stopStateFileStack.
 */
async function startStateFileStack(
  options: StateFileStackOptions,
): Promise<{ stack: RunningLocalStack; local: TempLocalDir }> {
  const local = await tempLocalDir();
  const stack = await startLocalStack({
    memory: true,
    ports: ANY_PORTS,
    sweepIntervalMs: 3_600_000,
    verbose: false,
    ...options,
    dir: local.dir,
    writeStateFile: true,
    log: () => {},
  });
  return { stack, local };
}

/** Stops what startStateFileStack started, whichever part of it is there (a failed start leaves either undefined). */
async function stopStateFileStack(
  stack: RunningLocalStack | undefined,
  local: TempLocalDir | undefined,
): Promise<void> {
  await stack?.stop();
  await local?.remove();
}

export { startQuietStack, startStateFileStack, stopStateFileStack, type TempLocalDir };
