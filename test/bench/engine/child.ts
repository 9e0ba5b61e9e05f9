import { startDynalite } from '../../../infra/local/engines.js';
import { BENCH_ENGINE } from '../support/bench-engine.js';

// The benchmark's dynalite in a process of its own, so the worker process's CPU (process.cpuUsage) is the
// worker's alone. Prints `{"endpoint": …}` once listening; stops when its stdin closes (the parent exited).

const engine = await startDynalite(BENCH_ENGINE);
process.stdout.write(`${JSON.stringify({ endpoint: engine.endpoint, pid: process.pid })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void engine.stop().then(() => process.exit(0));
});
