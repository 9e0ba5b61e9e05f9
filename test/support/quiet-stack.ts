import { ANY_PORTS } from '../../infra/cli/local-options.js';
import { type RunningLocalStack, startLocalStack } from '../../infra/local/stack.js';

/**
 * A local stack for a browser or HTTP test: in memory, on free ports, one poller, no sweep during the test, silent,
 * and no state file (so it never takes the place of a developer's running stack).
 */
function startQuietStack(dir: string): Promise<RunningLocalStack> {
  return startLocalStack({
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
