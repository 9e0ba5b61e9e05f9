import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ManualClock } from '../../../lib/clock.js';
import type { JobIdentity } from '../../../lib/identity.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { Gate, sleep } from '../support/gate.js';
import { benchIdentity, leasefenceMessage, peerJob, runName, sideEffectKey } from '../support/jobs.js';
import { createLeasefenceWorker } from '../support/leasefence-worker.js';
import { createPeerWorker } from '../support/peer-worker.js';

/** What happened to one operation whose first worker stalled past its lease and then resumed. */
interface StaleOutcome {
  /** Side-effect writes that landed (returned success) across both workers. */
  sideEffects: number;
  /** Who wrote the record last: the worker that took over ('fresh'), or the one that woke up ('stale'). */
  finalWriter: 'fresh' | 'stale' | 'none';
}

/** One row of figure 3: side effects per operation for one system, over `operations` runs. */
interface StaleWorkerRow {
  system: 'leasefence' | 'powertools';
  operations: number;
  sideEffectsPerOperation: number;
  finalWriterStale: number;
}

const LEASE_MS = 30_000;
/** The peer's "lease": its in-progress expiry, now + the Lambda context's remaining time. */
const PEER_REMAINING_MS = 150;

async function finalWriter(
  engine: BenchEngine,
  tableName: string,
  identity: JobIdentity,
): Promise<StaleOutcome['finalWriter']> {
  const client = engine.documentClient();
  const output = await client.send(
    new GetCommand({ TableName: tableName, Key: sideEffectKey(identity), ConsistentRead: true }),
  );
  const writer = output.Item?.writtenBy;
  return writer === 'stale' ? 'stale' : writer === 'fresh' ? 'fresh' : 'none';
}

/**
 * leasefence: the stale worker claims, pauses before its side effect, its lease expires (manual clock), a fresh
 * worker takes over and finishes, then the stale one resumes. Its fenced write carries fence 1 < writer_epoch 2.
 */
async function leasefenceOperation(engine: BenchEngine, identity: JobIdentity): Promise<StaleOutcome> {
  const tables = await engine.createLeasefenceTables('stale');
  const sideEffectTable = await engine.createKeyedTable('stale-records', 'pk');
  const clock = new ManualClock(Date.now());
  const gate = new Gate();
  let sideEffects = 0;
  const onEffect = () => {
    sideEffects += 1;
  };
  const stale = createLeasefenceWorker({
    engine,
    tables,
    sideEffectTable,
    clock,
    workerId: 'stale',
    hooks: { beforeEffect: () => gate.pass(), onEffect },
  });
  const fresh = createLeasefenceWorker({
    engine,
    tables,
    sideEffectTable,
    clock,
    workerId: 'fresh',
    hooks: { onEffect },
  });
  const stalled = stale.runtime.handleMessage(leasefenceMessage(identity, 'ref'));
  await gate.reached;
  clock.advance(LEASE_MS + 1);
  await fresh.runtime.handleMessage(leasefenceMessage(identity, 'ref'));
  gate.open();
  await stalled;
  return { sideEffects, finalWriter: await finalWriter(engine, sideEffectTable, identity) };
}

/**
 * Powertools: the stale invocation saves INPROGRESS with a short in-progress expiry and pauses before its side
 * effect; after the expiry a fresh invocation's PutItem succeeds, it runs and completes; then the stale one resumes.
 */
async function peerOperation(engine: BenchEngine, identity: JobIdentity): Promise<StaleOutcome> {
  const tableName = await engine.createKeyedTable('stale-idempotency', 'id');
  const sideEffectTable = await engine.createKeyedTable('stale-peer-records', 'pk');
  const gate = new Gate();
  let sideEffects = 0;
  const onEffect = () => {
    sideEffects += 1;
  };
  const stale = createPeerWorker({
    engine,
    tableName,
    sideEffectTable,
    remainingTimeMs: PEER_REMAINING_MS,
    workerId: 'stale',
    hooks: { beforeEffect: () => gate.pass(), onEffect },
  });
  const fresh = createPeerWorker({ engine, tableName, sideEffectTable, workerId: 'fresh', hooks: { onEffect } });
  const job = peerJob(identity);
  const stalled = stale.invoke(job);
  await gate.reached;
  await sleep(PEER_REMAINING_MS + 50);
  await fresh.invoke(job);
  gate.open();
  await stalled;
  return { sideEffects, finalWriter: await finalWriter(engine, sideEffectTable, identity) };
}

/** Figure 3: side effects per operation when the first worker stalls past its lease and resumes. */
async function measureStaleWorker(engine: BenchEngine, operations: number): Promise<StaleWorkerRow[]> {
  const run = runName('stale');
  const rows: StaleWorkerRow[] = [];
  for (const [system, operate] of [
    ['leasefence', leasefenceOperation],
    ['powertools', peerOperation],
  ] as const) {
    let sideEffects = 0;
    let staleLast = 0;
    for (let index = 0; index < operations; index += 1) {
      const outcome = await operate(engine, benchIdentity(`${run}-${system}`, index));
      sideEffects += outcome.sideEffects;
      if (outcome.finalWriter === 'stale') staleLast += 1;
    }
    rows.push({ system, operations, sideEffectsPerOperation: sideEffects / operations, finalWriterStale: staleLast });
  }
  return rows;
}

export { measureStaleWorker, type StaleWorkerRow };
