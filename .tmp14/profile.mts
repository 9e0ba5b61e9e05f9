import { mapBounded } from '/work/wt/i14/lib/bounded-parallel.js';
import { startBenchEngine } from '/work/wt/i14/test/bench/support/bench-engine.js';
import { benchIdentity, leasefenceMessage, peerJob, runName } from '/work/wt/i14/test/bench/support/jobs.js';
import { createLeasefenceWorker } from '/work/wt/i14/test/bench/support/leasefence-worker.js';
import { createPeerWorker } from '/work/wt/i14/test/bench/support/peer-worker.js';
const system = process.argv[2] ?? 'leasefence';
const engine = await startBenchEngine({ process: true });
const tables = await engine.createLeasefenceTables('prof');
const records = await engine.createKeyedTable('prof-records', 'pk');
const idem = await engine.createKeyedTable('prof-idem', 'id');
const lf = createLeasefenceWorker({ engine, tables, sideEffectTable: records });
const peer = createPeerWorker({ engine, tableName: idem, sideEffectTable: records });
const handle = system === 'leasefence'
  ? async (run: string, i: number) => { await lf.runtime.handleMessage(leasefenceMessage(benchIdentity(run, i), 'ref')); }
  : async (run: string, i: number) => { await peer.invoke(peerJob(benchIdentity(run, i))); };
const n = Number(process.argv[3] ?? 1500);
await mapBounded(Array.from({ length: 200 }, (_, i) => i), 8, (i) => handle(runName('w'), i));
const run = runName('p');
const before = process.cpuUsage();
await mapBounded(Array.from({ length: n }, (_, i) => i), 8, (i) => handle(run, i));
const cpu = process.cpuUsage(before);
console.log(system, 'cpu ms/job', ((cpu.user + cpu.system) / 1000 / n).toFixed(3));
await engine.stop();
