import { ManualClock } from '../../../lib/clock.js';
import type { MessageResult } from '../../../lib/worker/worker-runtime.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { Gate, sleep } from '../support/gate.js';
import { benchIdentity, leasefenceMessage, peerJob, runName } from '../support/jobs.js';
import { createLeasefenceWorker, type LeasefenceWorker } from '../support/leasefence-worker.js';
import { createPeerWorker, type PeerWorker } from '../support/peer-worker.js';

/** DynamoDB requests one worker spent on one job in one situation. */
interface RequestCount {
  writes: number;
  reads: number;
  /** Failed conditional writes; on dynalite each one costs one read-back GetItem that DynamoDB would not need. */
  conditionFailures: number;
  byCommand: Record<string, number>;
}

/** One row of figure 1: a situation, leasefence's cost and the peer's (undefined where it has no such path). */
interface RequestCountRow {
  situation: string;
  leasefence: RequestCount;
  peer: RequestCount | undefined;
  /** Writes the producer spends before the worker runs (leasefence's inline body); 0 otherwise. */
  producerWrites: number;
}

/** Lease of the benchmark job (defineJob default), and the peer's in-progress expiry for takeovers. */
const LEASE_MS = 30_000;
const PEER_SHORT_EXPIRY_MS = 150;

function snapshot(worker: LeasefenceWorker | PeerWorker): RequestCount {
  return {
    writes: worker.counter.writes(),
    reads: worker.counter.reads(),
    conditionFailures: worker.conditionFailures.count(),
    byCommand: { ...worker.counter.byCommand },
  };
}

function reset(worker: LeasefenceWorker | PeerWorker): void {
  worker.counter.reset();
  worker.conditionFailures.reset();
}

function expectStatus(result: MessageResult, status: MessageResult['status'], what: string): void {
  if (result.status !== status) throw new Error(`${what}: expected ${status}, got ${JSON.stringify(result)}`);
}

/** Figure 1 for leasefence: each situation on fresh identities, counted on the worker that handles it. */
async function leasefenceCounts(engine: BenchEngine): Promise<Record<string, RequestCount> & { producer: number }> {
  const tables = await engine.createLeasefenceTables('counts');
  const clock = new ManualClock(Date.now());
  // Jobs whose operation id has a gate pause there (between claim and effect) until the scenario opens it.
  const stalls = new Map<string, Gate>();
  const hooks = { beforeEffect: async (id: { operationId: string }) => stalls.get(id.operationId)?.pass() };
  const a = createLeasefenceWorker({ engine, tables, clock, workerId: 'worker-a', hooks });
  const b = createLeasefenceWorker({ engine, tables, clock, workerId: 'worker-b' });
  const run = runName('lf-counts');
  const [refJob, inlineJob, redelivered, woken] = [0, 1, 2, 3].map((index) => benchIdentity(run, index)) as [
    ReturnType<typeof benchIdentity>,
    ReturnType<typeof benchIdentity>,
    ReturnType<typeof benchIdentity>,
    ReturnType<typeof benchIdentity>,
  ];
  const out: Record<string, RequestCount> = {};

  reset(a);
  expectStatus(await a.runtime.handleMessage(leasefenceMessage(refJob, 'ref')), 'executed', 'happy path (ref)');
  out.happyRef = snapshot(a);

  reset(a);
  await a.storeInlinePayload(inlineJob);
  const producer = a.counter.writes();
  reset(a);
  expectStatus(
    await a.runtime.handleMessage(leasefenceMessage(inlineJob, 'inline')),
    'executed',
    'happy path (inline)',
  );
  out.happyInline = snapshot(a);

  reset(a);
  expectStatus(await a.runtime.handleMessage(leasefenceMessage(refJob, 'ref')), 'skipped', 'replay of a finished job');
  out.replay = snapshot(a);

  // Takeover: worker A claims and stalls; its lease expires; B handles the message (redelivery or wake-up).
  for (const [name, identity, kind] of [
    ['takeoverRedelivery', redelivered, 'job'],
    ['takeoverWake', woken, 'wake'],
  ] as const) {
    const stallGate = new Gate();
    stalls.set(identity.operationId, stallGate);
    const stalled = a.runtime.handleMessage(leasefenceMessage(identity, 'ref'));
    await stallGate.reached;
    clock.advance(LEASE_MS + 1);
    reset(b);
    expectStatus(await b.runtime.handleMessage(leasefenceMessage(identity, 'ref', kind)), 'executed', name);
    out[name] = snapshot(b);
    stallGate.open();
    await stalled;
  }
  return Object.assign(out, { producer });
}

/** Figure 1 for the peer: the same situations, same counting (the payload travels in the event). */
async function peerCounts(engine: BenchEngine): Promise<Record<string, RequestCount>> {
  const tableName = await engine.createKeyedTable('counts-idempotency', 'id');
  const peer = createPeerWorker({ engine, tableName, workerId: 'peer-a' });
  const run = runName('peer-counts');
  const out: Record<string, RequestCount> = {};
  const [first, second, third] = [0, 1, 2].map((index) => peerJob(benchIdentity(run, index))) as [
    ReturnType<typeof peerJob>,
    ReturnType<typeof peerJob>,
    ReturnType<typeof peerJob>,
  ];

  reset(peer);
  await peer.invoke(first);
  out.happyRef = snapshot(peer);

  reset(peer);
  await peer.invoke(second);
  out.happyInline = snapshot(peer);

  reset(peer);
  await peer.invoke(first);
  out.replay = snapshot(peer);

  // Takeover: A's in-progress record expires (short remaining time), B's PutItem then succeeds.
  const stallGate = new Gate();
  const stalling = createPeerWorker({
    engine,
    tableName,
    workerId: 'peer-stalled',
    remainingTimeMs: PEER_SHORT_EXPIRY_MS,
    hooks: { beforeEffect: () => stallGate.pass() },
  });
  const rival = createPeerWorker({ engine, tableName, workerId: 'peer-b' });
  const stalled = stalling.invoke(third);
  await stallGate.reached;
  await sleep(PEER_SHORT_EXPIRY_MS + 50);
  reset(rival);
  await rival.invoke(third);
  out.takeoverRedelivery = snapshot(rival);
  stallGate.open();
  await stalled;
  return out;
}

/** Figure 1: requests per job for both systems, in the same run on the same engine. */
async function measureRequestCounts(engine: BenchEngine): Promise<RequestCountRow[]> {
  const leasefence = await leasefenceCounts(engine);
  const peer = await peerCounts(engine);
  const row = (situation: string, key: string, producerWrites = 0): RequestCountRow => ({
    situation,
    leasefence: leasefence[key] as RequestCount,
    peer: peer[key],
    producerWrites,
  });
  return [
    row('happy path, payloadRef', 'happyRef'),
    row('happy path, inline payload', 'happyInline', leasefence.producer),
    row('replay of a finished job', 'replay'),
    row('takeover after expiry (message redelivered)', 'takeoverRedelivery'),
    row('takeover after expiry (sweeper wake-up)', 'takeoverWake'),
  ];
}

export { measureRequestCounts, type RequestCount, type RequestCountRow };
