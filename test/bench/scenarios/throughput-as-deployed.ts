import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { FUNCTION_NODE_OPTIONS } from '../../../infra/construct/functions.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { runJsonChild } from '../support/child-json.js';
import { constructBundling } from '../support/construct-bundling.js';
import { describeSplit, splitCpus, unpinEngine } from '../support/cpu-pinning.js';
import type { ThroughputOptions, ThroughputRow } from './throughput.js';

const CHILD_ENTRY = fileURLToPath(new URL('../throughput/child.ts', import.meta.url));
/** Inside the repository, so the bundle's few runtime lookups (package.json of the SDK) resolve as they do in Lambda. */
const BUILD_DIR = fileURLToPath(new URL('../../../node_modules/.cache/leasefence-bench/', import.meta.url));

/**
 * Figure 2 on the code Lambda runs: both workers (leasefence's runtime and the Powertools peer) built into one
 * esbuild bundle with the construct's settings (infra/construct/functions.ts: ESM, minified, names kept, source
 * maps, AWS SDK and Powertools bundled), run in a child process with `--enable-source-maps` as the functions
 * are. Under tsx only leasefence's TypeScript would be transformed at load (wrapped for names), the peer's
 * published JavaScript not: a bundle builds both the same way. The engine stays in its own process.
 */
async function measureThroughputAsDeployed(
  engine: BenchEngine,
  options: ThroughputOptions,
): Promise<{ rows: ThroughputRow[]; cpuPinning: string }> {
  mkdirSync(BUILD_DIR, { recursive: true });
  const bundle = join(BUILD_DIR, 'throughput-child.mjs');
  // Everything bundled, Powertools and the SDK included: one self-contained file, as with bundleAwsSdk: true.
  await build({ ...constructBundling(true), entryPoints: [CHILD_ENTRY], outfile: bundle });
  // The engine on a core of its own where the machine has two: the worker's CPU per job is then its own work.
  const split = splitCpus(engine.enginePid);
  try {
    const [result] = await runJsonChild<{ rows: ThroughputRow[] }>(
      bundle,
      {
        endpoint: engine.endpoint,
        enginePid: engine.enginePid,
        options,
        ...(split.pinned ? { workerCpus: split.worker } : {}),
      },
      { name: 'figure 2', loader: 'none', nodeFlags: FUNCTION_NODE_OPTIONS.split(' '), timeoutMs: 30 * 60_000 },
    );
    if (!result) throw new Error('figure 2 child printed no rows');
    return { rows: result.rows, cpuPinning: describeSplit(split) };
  } finally {
    if (split.pinned && engine.enginePid !== undefined) unpinEngine(engine.enginePid);
  }
}

export { measureThroughputAsDeployed };
