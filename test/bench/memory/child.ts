import { mapBounded } from '../../../lib/internal/bounded-parallel.js';
import { startBenchEngine } from '../support/bench-engine.js';
import { benchIdentity, leasefenceMessage, peerJob, runName } from '../support/jobs.js';
import { createLeasefenceWorker } from '../support/leasefence-worker.js';
import { createPeerWorker } from '../support/peer-worker.js';

// Child process of figure 6 (run with --expose-gc): one worker handles `jobs` jobs against the parent's
// dynalite, and after every `checkpoint` jobs forces a full GC and prints its memory as one JSON line.
// The engine lives in the parent, so the table's growth is not counted here.

interface ChildConfig {
  system: 'leasefence' | 'powertools';
  endpoint: string;
  jobsTable: string;
  payloadsTable: string;
  idempotencyTable: string;
  recordsTable: string;
  jobs: number;
  checkpoint: number;
  concurrency: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const engine = await startBenchEngine({ endpoint: config.endpoint });
const tables = { jobsTable: config.jobsTable, payloadsTable: config.payloadsTable };
const handle: (index: number, run: string) => Promise<void> =
  config.system === 'leasefence'
    ? (() => {
        const worker = createLeasefenceWorker({ engine, tables, sideEffectTable: config.recordsTable });
        return async (index, run) => {
          const result = await worker.runtime.handleMessage(leasefenceMessage(benchIdentity(run, index), 'ref'));
          if (result.status !== 'executed') throw new Error(`job ${index}: ${result.status}`);
        };
      })()
    : (() => {
        const peer = createPeerWorker({
          engine,
          tableName: config.idempotencyTable,
          sideEffectTable: config.recordsTable,
        });
        return async (index, run) => {
          await peer.invoke(peerJob(benchIdentity(run, index)));
        };
      })();

// Peak RSS by sampling: getrusage's maxRSS of a spawned child can report the parent's high-water mark.
let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 20);
sampler.unref();

const run = runName(`mem-${config.system}`);
for (let done = 0; done < config.jobs; done += config.checkpoint) {
  const indexes = Array.from({ length: Math.min(config.checkpoint, config.jobs - done) }, (_, offset) => done + offset);
  await mapBounded(indexes, config.concurrency, (index) => handle(index, run));
  gc();
  gc();
  const usage = process.memoryUsage();
  peakRss = Math.max(peakRss, usage.rss);
  const line = {
    jobs: done + indexes.length,
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    peakRssBytes: peakRss,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
clearInterval(sampler);
await engine.stop();
