import { ANY_PORTS } from '../../infra/cli/local-options.js';
import { type LocalStackOptions, type RunningLocalStack, startLocalStack } from '../../infra/local/stack.js';

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

export { startQuietStack };
