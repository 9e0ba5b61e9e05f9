import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { FUNCTION_NODE_OPTIONS } from '../../../infra/construct/functions.js';
import { startBenchEngine } from '../support/bench-engine.js';
import { type ColdInvocation, measureColdInvocations } from '../support/cold-invocation.js';
import { constructBundling } from '../support/construct-bundling.js';
import { benchIdentity, leasefenceMessage, peerJob, runName } from '../support/jobs.js';

const LEASEFENCE_ENTRY = fileURLToPath(new URL('../bundle/leasefence-handler.ts', import.meta.url));
const LEASEFENCE_MINI_ENTRY = fileURLToPath(new URL('../bundle/leasefence-handler-mini.ts', import.meta.url));
const PEER_ENTRY = fileURLToPath(new URL('../bundle/peer-handler.ts', import.meta.url));
/** Inside the repository, so the SDK-external bundles import `@aws-sdk/*` from node_modules as from the runtime. */
const CACHE_DIR = fileURLToPath(new URL('../../../node_modules/.cache/leasefence-bench/', import.meta.url));

/**
 * Both systems reach the engine through the SDK's documented endpoint variable, with static credentials, and run
 * with the Node flags the construct gives its functions (source maps on; the peer is built with the same settings).
 */
function engineEnvironment(endpoint: string): Record<string, string> {
  return {
    NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/**
 * Figure 5's cold invocation: import + first handled SQS event (one record) in a fresh process, for the
 * leasefence worker handler (test/bench/bundle/leasefence-handler.ts) and the Powertools peer, both bundled
 * with the construct's settings and the AWS SDK external, against dynalite in its own process.
 */
async function measureColdInvocation(options: { runs: number }): Promise<ColdInvocation[]> {
  const dir = join(CACHE_DIR, runName('cold-invocation'));
  mkdirSync(dir, { recursive: true });
  const engine = await startBenchEngine({ process: true });
  try {
    const files = {
      leasefence: join(dir, 'leasefence.mjs'),
      leasefenceMini: join(dir, 'leasefence-mini.mjs'),
      peer: join(dir, 'peer.mjs'),
    };
    await build({ ...constructBundling(false), entryPoints: [LEASEFENCE_ENTRY], outfile: files.leasefence });
    await build({ ...constructBundling(false), entryPoints: [LEASEFENCE_MINI_ENTRY], outfile: files.leasefenceMini });
    await build({ ...constructBundling(false), entryPoints: [PEER_ENTRY], outfile: files.peer });
    const tables = await engine.createLeasefenceTables('cold');
    const idempotencyTable = await engine.createKeyedTable('cold-idempotency', 'id');
    const run = runName('cold');
    const env = engineEnvironment(engine.endpoint);
    const workerEnv = {
      ...env,
      LEASEFENCE_JOBS_TABLE: tables.jobsTable,
      LEASEFENCE_PAYLOADS_TABLE: tables.payloadsTable,
    };
    return measureColdInvocations(
      [
        {
          name: 'worker, classic payload',
          file: files.leasefence,
          env: workerEnv,
          body: (index) => leasefenceMessage(benchIdentity(run, index), 'ref').body,
        },
        {
          name: 'worker, mini payload',
          file: files.leasefenceMini,
          env: workerEnv,
          // Its own identities: a run of one handler never replays a job the other finished.
          body: (index) => leasefenceMessage(benchIdentity(`${run}-mini`, index), 'ref').body,
        },
        {
          name: 'powertools-idempotency',
          file: files.peer,
          env: { ...env, IDEMPOTENCY_TABLE: idempotencyTable },
          body: (index) => JSON.stringify(peerJob(benchIdentity(run, index))),
        },
      ],
      options.runs,
    );
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export { measureColdInvocation };
