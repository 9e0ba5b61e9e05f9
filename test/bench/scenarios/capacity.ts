import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ManualClock } from '../../../lib/clock.js';
import { parseStepName } from '../../../lib/fenced/steps.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { jobsTableDefinition, payloadsTableDefinition, workItemKey } from '../../../lib/store/table.js';
import { parseLease, parseLeaseDuration, parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { itemSize, tableShape } from '../support/capacity.js';
import { type CapacityRecorder, recordCapacity } from '../support/capacity-recorder.js';
import { Gate, sleep } from '../support/gate.js';
import {
  BENCH_JOB_TYPE,
  benchIdentity,
  benchPayload,
  leasefenceMessage,
  payloadRefFor,
  peerJob,
  runName,
} from '../support/jobs.js';
import { createLeasefenceWorker } from '../support/leasefence-worker.js';
import { createPeerWorker } from '../support/peer-worker.js';

/** Billed units of one situation for one system (DynamoDB rules, see test/bench/support/capacity.ts). */
interface Units {
  wru: number;
  rru: number;
  /** Part of `wru` spent on global secondary indexes. */
  indexWru: number;
}

/** One row of the capacity figure; `undefined` where a system has no such path. */
interface CapacityRow {
  situation: string;
  leasefence: Units | undefined;
  peer: Units | undefined;
}

/** The capacity figure: rows, the engine cross-check, and the work-row sizes of the example-like jobs. */
interface CapacityReport {
  rows: CapacityRow[];
  /** Requests whose table units the engine reported (ReturnConsumedCapacity INDEXES), and how many disagreed. */
  engineChecked: number;
  /** Which commands the engine reported units for. */
  engineCheckedCommands: string[];
  engineMismatches: number;
  /** Sizes in bytes of work rows at their largest (claimed, steps recorded, completed with a result). */
  rowBytes: number[];
}

const LEASE_MS = 30_000;
/** A work row created directly through the store (heartbeat, sweeper and operator situations). */
const BENCH_ROW = { jobType: BENCH_JOB_TYPE, payloadHash: 'e'.repeat(64), payloadRef: 'bench:direct', maxAttempts: 3 };
const PEER_SHORT_EXPIRY_MS = 150;

function units(recorder: CapacityRecorder): Units {
  const totals = recorder.totals();
  return { wru: totals.wru, rru: totals.rru, indexWru: totals.indexWru };
}

/** Units of `action` alone on `recorder` (reset before, read after). */
async function measure(recorder: CapacityRecorder, action: () => Promise<unknown>): Promise<Units> {
  recorder.reset();
  await action();
  return units(recorder);
}

function sum(a: Units, b: Units): Units {
  return { wru: a.wru + b.wru, rru: a.rru + b.rru, indexWru: a.indexWru + b.indexWru };
}

async function expectExecuted(promise: Promise<{ status: string }>, what: string): Promise<void> {
  const result = await promise;
  if (result.status !== 'executed') throw new Error(`${what}: ${JSON.stringify(result)}`);
}

/** Every leasefence situation, on one worker pair sharing a manual clock. */
async function leasefenceUnits(engine: BenchEngine, sqs: SQSClient, queueUrl: string) {
  const tables = await engine.createLeasefenceTables('capacity');
  const shapes = new Map([
    [tables.jobsTable, tableShape(jobsTableDefinition(tables.jobsTable))],
    [tables.payloadsTable, tableShape(payloadsTableDefinition(tables.payloadsTable))],
  ]);
  const observer = engine.rawClient();
  const clock = new ManualClock(Date.now());
  const stalls = new Map<string, Gate>();
  const hooks = { beforeEffect: async (id: { operationId: string }) => stalls.get(id.operationId)?.pass() };
  const a = createLeasefenceWorker({ engine, tables, clock, workerId: 'worker-a', hooks });
  const b = createLeasefenceWorker({ engine, tables, clock, workerId: 'worker-b' });
  const ra = recordCapacity(a.client, observer, shapes, { documentClient: true });
  const rb = recordCapacity(b.client, observer, shapes, { documentClient: true });
  const store = new OperatorStore({ client: a.client, tableName: tables.jobsTable, clock });
  const run = runName('lf-capacity');
  const id = (index: number) => parseIdentity(benchIdentity(run, index));
  const out: Record<string, Units> = {};

  out.happy = await measure(ra, () =>
    expectExecuted(a.runtime.handleMessage(leasefenceMessage(id(0), 'ref')), 'happy'),
  );
  const producer = await measure(ra, () => a.storeInlinePayload(id(1)));
  const inline = await measure(ra, () =>
    expectExecuted(a.runtime.handleMessage(leasefenceMessage(id(1), 'inline')), 'inline'),
  );
  out.inline = sum(producer, inline);
  // A delayed job (lib/messaging/delayed-job.ts): the producer writes the queued row, due later, and sends a wake-up
  // with DelaySeconds; when it arrives the worker claims the row and completes.
  const delayed = id(2);
  const scheduled = await measure(ra, () =>
    store.enqueue(
      parseNewWorkItem({
        identity: delayed,
        jobType: BENCH_JOB_TYPE,
        payloadHash: payloadHash(benchPayload(delayed.operationId)),
        payloadRef: payloadRefFor(delayed),
        maxAttempts: 3,
        availableAt: clock.now() + 60_000,
      }),
    ),
  );
  clock.advance(60_000);
  const woken = await measure(ra, () =>
    expectExecuted(a.runtime.handleMessage(leasefenceMessage(delayed, 'ref', 'wake')), 'delayed'),
  );
  out.delayed = sum(scheduled, woken);
  out.replay = await measure(ra, () => a.runtime.handleMessage(leasefenceMessage(id(0), 'ref')));
  // Confirm-first (sendJob confirm: true): the producer stores the body and writes the queued row, due now, then
  // sends its wake-up; the worker claims the row and completes.
  const confirmed = id(9);
  const confirmWrites = await measure(ra, async () => {
    await a.storeInlinePayload(confirmed);
    await store.enqueue(
      parseNewWorkItem({
        identity: confirmed,
        jobType: BENCH_JOB_TYPE,
        payloadHash: payloadHash(benchPayload(confirmed.operationId)),
        payloadInline: true,
        maxAttempts: 3,
      }),
    );
  });
  const confirmRun = await measure(ra, () =>
    expectExecuted(a.runtime.handleMessage(leasefenceMessage(confirmed, 'inline', 'wake')), 'confirm'),
  );
  out.confirm = sum(confirmWrites, confirmRun);
  // A body carried in the message: the worker stores it (the producer writes nothing), then as an inline job.
  out.carried = await measure(ra, () =>
    expectExecuted(a.runtime.handleMessage(leasefenceMessage(id(10), 'carried')), 'carried'),
  );

  const lease = parseLease({ owner: 'worker-a', leaseMs: LEASE_MS });
  const created = await store.enqueue(parseNewWorkItem({ identity: id(3), ...BENCH_ROW }), lease);
  if (created.outcome !== 'created' || !created.claim) throw new Error('heartbeat setup: no claim');
  const claim = created.claim;
  out.heartbeat = await measure(ra, () => store.heartbeat(claim, parseLeaseDuration(LEASE_MS)));

  // A retry beyond the happy path: the fenced write that queues the row again (its deadline moves from the lease
  // to availableAt) and the claim its own wake-up makes once due (the deadline moves back to a lease).
  const retried = await store.enqueue(parseNewWorkItem({ identity: id(8), ...BENCH_ROW }), lease);
  if (retried.outcome !== 'created' || !retried.claim) throw new Error('retry setup: no claim');
  const retriedClaim = retried.claim;
  out.retry = await measure(ra, async () => {
    await store.failRetryable(retriedClaim, { errorCode: 'provider_down', retryDelayMs: 1_000 });
    clock.advance(1_000);
    const again = await store.claim(id(8), lease);
    if (!again.claimed) throw new Error(`retry: not re-claimed (${again.reason})`);
  });

  const stallGate = new Gate();
  stalls.set(id(4).operationId, stallGate);
  const stalled = a.runtime.handleMessage(leasefenceMessage(id(4), 'ref'));
  await stallGate.reached;
  clock.advance(LEASE_MS + 1);
  out.takeover = await measure(rb, () =>
    expectExecuted(b.runtime.handleMessage(leasefenceMessage(id(4), 'ref')), 'takeover'),
  );
  stallGate.open();
  await stalled;

  // Sweeper: a fixed read cost per run (one Query per deadline shard + the oldest-unknown probe of each parked
  // shard), then per item.
  const sweepStore = new OperatorStore({ client: a.client, tableName: tables.jobsTable, clock });
  const sweepOnce = () => sweep({ store: sweepStore, sqs, queueUrl, clock, dueGraceMs: 0 });
  await sweepOnce(); // settles what the situations above left, so the next runs see only their own items
  const overhead = await measure(ra, sweepOnce);
  out.sweepRun = overhead;
  const extra = (measured: Units): Units => ({ ...measured, rru: measured.rru - overhead.rru });
  await store.enqueue(parseNewWorkItem({ identity: id(5), ...BENCH_ROW }), lease);
  clock.advance(LEASE_MS + 1);
  out.sweepItem = extra(await measure(ra, sweepOnce));
  const heartbeating = await store.enqueue(parseNewWorkItem({ identity: id(6), ...BENCH_ROW }), lease);
  if (heartbeating.outcome !== 'created' || !heartbeating.claim) throw new Error('sweep setup: no claim');
  clock.advance(LEASE_MS / 2);
  await store.heartbeat(heartbeating.claim, parseLeaseDuration(LEASE_MS));
  clock.advance(LEASE_MS / 2 + 1);
  out.sweepAdvance = extra(await measure(ra, sweepOnce));

  const cancelTarget = id(7);
  await store.enqueue(parseNewWorkItem({ identity: cancelTarget, ...BENCH_ROW }), lease);
  out.operator = await measure(ra, () =>
    store.cancel(cancelTarget, { actor: 'bench-operator', reason: 'capacity figure' }),
  );
  const check = [...ra.records, ...rb.records];
  return { out, recorders: [ra, rb], check };
}

/** The peer's situations: same job, same engine; no heartbeat, sweeper or operator paths exist. */
async function peerUnits(engine: BenchEngine) {
  const tableName = await engine.createKeyedTable('capacity-idempotency', 'id');
  const observer = engine.rawClient();
  const shapes = new Map([[tableName, { keys: ['id'], indexes: [] }]]);
  const peer = createPeerWorker({ engine, tableName, workerId: 'peer-a' });
  const recorder = recordCapacity(peer.client, observer, shapes, { documentClient: false });
  const run = runName('peer-capacity');
  const job = (index: number) => peerJob(benchIdentity(run, index));
  const out: Record<string, Units> = {};
  out.happy = await measure(recorder, () => peer.invoke(job(0)));
  out.inline = await measure(recorder, () => peer.invoke(job(1)));
  out.delayed = await measure(recorder, () => peer.invoke(job(2)));
  out.replay = await measure(recorder, () => peer.invoke(job(0)));
  const stallGate = new Gate();
  const stalling = createPeerWorker({
    engine,
    tableName,
    workerId: 'peer-stalled',
    remainingTimeMs: PEER_SHORT_EXPIRY_MS,
    hooks: { beforeEffect: () => stallGate.pass() },
  });
  const rival = createPeerWorker({ engine, tableName, workerId: 'peer-b' });
  const rivalRecorder = recordCapacity(rival.client, observer, shapes, { documentClient: false });
  const stalled = stalling.invoke(job(3));
  await stallGate.reached;
  await sleep(PEER_SHORT_EXPIRY_MS + 50);
  out.takeover = await measure(rivalRecorder, () => rival.invoke(job(3)));
  stallGate.open();
  await stalled;
  return { out, check: [...recorder.records, ...rivalRecorder.records] };
}

/** Identities, job types and refs shaped like the example jobs' (examples/jobs, examples/demo/cases.ts). */
const EXAMPLE_JOBS = [
  { tenantId: 'm_4471', operationId: 'refund-r_815', jobType: 'refund-settlement', steps: ['charge', 'notify'] },
  {
    tenantId: 'bank-eu',
    operationId: 'statement-acct-42-2026-11',
    jobType: 'statement-publication',
    steps: ['render'],
  },
  { tenantId: 'shop-1', operationId: 'order-9001-reserve', jobType: 'inventory-reservation', steps: ['reserve'] },
] as const;

/**
 * Sizes (bytes, by the accountant's rules) of example-like work rows at each point of their life: claimed by a
 * Lambda-style worker id, after each step, completed with a small result.
 */
async function exampleRowBytes(engine: BenchEngine): Promise<number[]> {
  const tables = await engine.createLeasefenceTables('rows');
  const observer = engine.rawClient();
  const client = engine.documentClient();
  const store = new OperatorStore({ client, tableName: tables.jobsTable });
  const sizes: number[] = [];
  const size = async (identity: { tenantId: string; operationId: string }) => {
    const key = workItemKey(identity);
    const { Item } = await observer.send(
      new GetItemCommand({ TableName: tables.jobsTable, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }),
    );
    sizes.push(Item ? itemSize(Item) : 0);
  };
  for (const job of EXAMPLE_JOBS) {
    const identity = { tenantId: job.tenantId, operationId: job.operationId };
    const created = await store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: job.jobType,
        payloadHash: 'f'.repeat(64),
        payloadRef: `s3://acme-payloads/${job.tenantId}/${job.operationId}.json`,
        maxAttempts: 5,
      }),
      parseLease({ owner: '2026/11/30/[$LATEST]0f1e2d3c4b5a69788796a5b4c3d2e1f0', leaseMs: 60_000 }),
    );
    if (created.outcome !== 'created' || !created.claim) throw new Error('row sizes: no claim');
    await size(identity);
    for (const step of job.steps) {
      await store.recordStep(created.claim, parseStepName(step), { ref: `ext_${step}_8f3a2c`, at: Date.now() });
      await size(identity);
    }
    await store.complete(
      created.claim,
      parseJobOutcome({ outcomeCode: 'done', result: { externalRef: 'ext_8f3a2c91' } }),
    );
    await size(identity);
  }
  return sizes;
}

/** Figure 7: WRU/RRU per job and situation for both systems, cross-checked against the engine's report. */
async function measureCapacity(
  engine: BenchEngine,
  queue: { sqs: SQSClient; queueUrl: string },
): Promise<CapacityReport> {
  const lf = await leasefenceUnits(engine, queue.sqs, queue.queueUrl);
  const peer = await peerUnits(engine);
  const row = (situation: string, key: string, peerKey: string | undefined = key): CapacityRow => ({
    situation,
    leasefence: lf.out[key],
    peer: peerKey ? peer.out[peerKey] : undefined,
  });
  const checked = [...lf.check, ...peer.check].filter(
    (record) => record.engineTableUnits !== undefined && !record.readBack,
  );
  const mismatches = checked.filter((record) => record.engineTableUnits !== (record.write?.table ?? record.read));
  return {
    rows: [
      row('happy path, payloadRef', 'happy'),
      row('happy path, inline payload (producer + worker)', 'inline'),
      row('delayed job (queued row first, then a wake-up)', 'delayed'),
      row('confirm-first enqueue (body, queued row, then a wake-up)', 'confirm', 'inline'),
      row('inline payload carried in the message (the worker stores it)', 'carried', 'inline'),
      row('replay of a finished job', 'replay'),
      row('each heartbeat', 'heartbeat', undefined),
      row('each retry (queued again, then re-claimed by its own wake-up)', 'retry', undefined),
      row('takeover after expiry (message redelivered)', 'takeover'),
      row('sweep run, fixed (per run, any table size)', 'sweepRun', undefined),
      row('sweep, per expired claim (re-signal)', 'sweepItem', undefined),
      row('sweep, per heartbeating claim past its index deadline', 'sweepAdvance', undefined),
      row('operator action (cancel a claimed job)', 'operator', undefined),
    ],
    engineChecked: checked.length,
    engineCheckedCommands: [...new Set(checked.map((record) => record.command))].sort(),
    engineMismatches: mismatches.length,
    rowBytes: await exampleRowBytes(engine),
  };
}

export { type CapacityReport, type CapacityRow, measureCapacity, type Units };
