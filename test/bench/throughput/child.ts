import { measureThroughput, type ThroughputOptions } from '../scenarios/throughput.js';
import { attachBenchEngine } from '../support/attached-engine.js';
import { pinProcess } from '../support/cpu-pinning.js';

// Child process of figure 2, run from one esbuild bundle built as the construct builds the worker (see
// measureThroughputAsDeployed): both systems' workers against the parent's engine, one JSON line of rows.

interface ChildConfig {
  endpoint: string;
  enginePid?: number;
  options: ThroughputOptions;
  /** CPUs this worker process runs on (the engine has the others); absent = not pinned. */
  workerCpus?: number[];
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
if (config.workerCpus) pinProcess(process.pid, config.workerCpus);
const engine = attachBenchEngine({ endpoint: config.endpoint, pid: config.enginePid });
try {
  const rows = await measureThroughput(engine, config.options);
  process.stdout.write(`${JSON.stringify({ rows })}\n`);
} finally {
  await engine.stop();
}
