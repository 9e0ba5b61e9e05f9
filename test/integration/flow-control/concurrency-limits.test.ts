import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { readLimits } from '../../../lib/admin/limits.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { MetricName } from '../../../lib/metric-names.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/*
 * Concurrency limits (issue #42) under real concurrency: several worker handlers (each a Lambda container, each
 * running its batch in parallel) on dynalite and fauxqs. No test here runs the sweeper: every waiting job is reached
 * through a freed slot's wake-up or its own bounded-delay re-check.
 */

/** What ran, per operation id, and how many ran at once per key and per tenant (the highest seen). */
const runs = new Map<string, number>();
const running = new Map<string, number>();
const highest = new Map<string, number>();
/** Jobs that block until the test releases them, by operation id. */
const gates = new Map<string, { opened: Promise<void>; open: () => void }>();

function enter(scope: string): void {
  const now = (running.get(scope) ?? 0) + 1;
  running.set(scope, now);
  highest.set(scope, Math.max(highest.get(scope) ?? 0, now));
}

function leave(scope: string): void {
  running.set(scope, (running.get(scope) ?? 1) - 1);
}

function gate(operationId: string): () => void {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  gates.set(operationId, { opened, open });
  return open;
}

const payload = z.strictObject({ account: z.string(), tag: z.string() });

async function observed(tenantId: string, operationId: string, account: string, tag: string): Promise<void> {
  runs.set(operationId, (runs.get(operationId) ?? 0) + 1);
  const scopes = [`${tag}:key:${tenantId}:${account}`, `${tag}:tenant:${tenantId}`];
  for (const scope of scopes) enter(scope);
  try {
    await (gates.get(operationId)?.opened ?? new Promise((resolve) => setTimeout(resolve, 15)));
  } finally {
    for (const scope of scopes) leave(scope);
  }
}

function limitedJob(type: string, concurrency: { perTenant?: number; perKey?: number; recheckMs?: number }) {
  return defineJob({
    type,
    version: 1,
    target: 'B',
    payload,
    leaseMs: 2_000,
    flow: {
      concurrency: {
        ...(concurrency.perTenant !== undefined ? { perTenant: concurrency.perTenant } : {}),
        ...(concurrency.perKey !== undefined
          ? { perKey: { limit: concurrency.perKey, key: (body: z.infer<typeof payload>) => body.account } }
          : {}),
        recheckMs: concurrency.recheckMs ?? 1_000,
      },
    },
    run: async (ctx) => {
      await observed(ctx.identity.tenantId, ctx.identity.operationId, ctx.payload.account, ctx.payload.tag);
      return { outcomeCode: 'done' };
    },
  });
}

const fanout = limitedJob('fanout', { perTenant: 2, perKey: 1 });
const oneAtATime = limitedJob('one-at-a-time', { perKey: 1, recheckMs: 900_000 });
const classD = defineJob({
  type: 'class-d-limited',
  version: 1,
  target: 'D',
  payload,
  flow: { concurrency: { perTenant: 1, recheckMs: 900_000 } },
  run: async (ctx) => {
    await observed(ctx.identity.tenantId, ctx.identity.operationId, ctx.payload.account, ctx.payload.tag);
    return { outcomeCode: 'done' };
  },
});

describe('concurrency limits across several workers (dynalite, fauxqs; no sweeper)', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('flowslots', [fanout, oneAtATime, classD]);
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Polls every worker at once until the queue is empty and every listed row finished, at most `rounds` times. */
  async function drain(workers: ReturnType<WorkerHarness['worker']>[], ids: string[], tenantId: string, rounds = 80) {
    for (let round = 0; round < rounds; round += 1) {
      await Promise.all(workers.map((worker) => harness.poll(worker, { waitTimeSeconds: 1 })));
      const rows = await Promise.all(
        ids.map((operationId) => harness.store.get(parseIdentity({ tenantId, operationId }))),
      );
      if (rows.every((row) => row?.state === 'succeeded')) return rows;
    }
    throw new Error('jobs did not finish');
  }

  it('a freed slot wakes its waiter at once, without the sweeper (its own re-check is 15 minutes away)', async () => {
    const first = parseIdentity({ tenantId: 'quiet', operationId: 'holder' });
    const second = parseIdentity({ tenantId: 'quiet', operationId: 'waiter' });
    const release = gate(first.operationId);
    await harness.send({ ...first, jobType: 'one-at-a-time', payload: { account: 'x', tag: 'wake' } });
    const holderWorker = harness.worker();
    const holding = harness.poll(holderWorker);
    await until(async () => highest.get('wake:key:quiet:x') === 1);
    await harness.send({ ...second, jobType: 'one-at-a-time', payload: { account: 'x', tag: 'wake' } });
    const waiterWorker = harness.worker();

    expect(await harness.poll(waiterWorker)).toMatchObject({ received: 1, deleted: 1 });
    expect(await harness.store.get(second)).toMatchObject({
      state: 'queued',
      attempts: 0,
      errorCode: 'concurrency_wait',
    });
    const partition = (await harness.store.flow()).slots.partitionOf('one-at-a-time', {
      kind: 'key',
      tenantId: 'quiet',
      key: 'x',
    });
    expect(await (await harness.store.flow()).slots.usage(partition)).toMatchObject({ inUse: 1, waiting: 1 });
    // What `leasefence limits` prints: the per-key limit of this key, one slot in use of 1, one job waiting.
    const admin = { store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl, payloadsTable: 'unused' };
    const report = await readLimits(admin, { jobType: 'one-at-a-time', tenantId: 'quiet', key: 'x' });
    expect(report.limits).toEqual([
      { scope: 'type', inUse: 0, expired: 0, waiting: 0 },
      { scope: 'tenant', tenantId: 'quiet', inUse: 0, expired: 0, waiting: 0 },
      expect.objectContaining({ scope: 'key', tenantId: 'quiet', limit: 1, inUse: 1, expired: 0, waiting: 1 }),
    ]);
    expect(report.notRead).toBeUndefined();
    // Only the holder's message (still running); the waiter's own re-check is delayed 15 minutes: nothing visible.
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 1 });

    release();
    await holding;
    expect(await harness.poll(waiterWorker)).toMatchObject({ received: 1, deleted: 1 });

    expect(await harness.store.get(second)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(runs.get(second.operationId)).toBe(1);
    expect(await (await harness.store.flow()).slots.usage(partition)).toMatchObject({ inUse: 0, waiting: 0 });
    // How long it waited is a gauge the ConcurrencyWait alarm watches (emitted at the wait and at the grant).
    expect(waiterWorker.telemetry.counts[MetricName.ConcurrencyWaitSeconds]).toBeGreaterThanOrEqual(0);
    expect(waiterWorker.telemetry.byJobType['one-at-a-time']?.[MetricName.ConcurrencyWaits]).toBe(1);
  });

  it('a class D job that waited for a slot still runs its one attempt (the wait put the effect mark back)', async () => {
    const first = parseIdentity({ tenantId: 'dee', operationId: 'd-holder' });
    const second = parseIdentity({ tenantId: 'dee', operationId: 'd-waiter' });
    const release = gate(first.operationId);
    await harness.send({ ...first, jobType: 'class-d-limited', payload: { account: 'y', tag: 'dee' } });
    const holding = harness.poll(harness.worker());
    await until(async () => highest.get('dee:tenant:dee') === 1);
    await harness.send({ ...second, jobType: 'class-d-limited', payload: { account: 'z', tag: 'dee' } });
    const worker = harness.worker();
    await harness.poll(worker);
    const waiting = await harness.store.get(second);
    expect(waiting).toMatchObject({ state: 'queued', attempts: 0, errorCode: 'concurrency_wait' });
    expect(waiting?.effectMayHaveHappened).toBeUndefined();

    release();
    await holding;
    await harness.poll(worker);

    expect(await harness.store.get(second)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(runs.get(second.operationId)).toBe(1);
  });

  it("a crashed holder's slot frees when its lease expires: the limit is exceeded only by that holder, counted", async () => {
    const stale = parseIdentity({ tenantId: 'crash', operationId: 'stale-holder' });
    const next = parseIdentity({ tenantId: 'crash', operationId: 'next' });
    const unstick = gate(stale.operationId);
    await harness.send({ ...stale, jobType: 'one-at-a-time', payload: { account: 'k', tag: 'crash' } });
    // The holder hangs (no progress, no heartbeat): to everyone else it is a crashed worker.
    const hung = harness.poll(harness.worker());
    await until(async () => highest.get('crash:key:crash:k') === 1);
    await harness.send({ ...next, jobType: 'one-at-a-time', payload: { account: 'k', tag: 'crash' } });
    const worker = harness.worker();
    await harness.poll(worker);
    expect(await harness.store.get(next)).toMatchObject({
      state: 'queued',
      attempts: 0,
      errorCode: 'concurrency_wait',
    });

    // Past the hung holder's lease and the waiter's own re-check; the sweeper never runs. The producer's resend
    // stands in for the re-check's delayed message (fauxqs delays it 15 real minutes).
    harness.clock.advance(901_000);
    await harness.send({ ...next, jobType: 'one-at-a-time', payload: { account: 'k', tag: 'crash' } });
    await harness.poll(worker);

    expect(await harness.store.get(next)).toMatchObject({ state: 'succeeded', attempts: 1 });
    const regranted = worker.telemetry.counts[MetricName.ConcurrencySlotRegranted] ?? 0;
    expect(regranted).toBe(1);
    // Both ran at once on a limit of 1: exceeded by exactly the expired holders whose slot was re-granted.
    expect(highest.get('crash:key:crash:k')).toBeLessThanOrEqual(1 + regranted);
    const partition = (await harness.store.flow()).slots.partitionOf('one-at-a-time', {
      kind: 'key',
      tenantId: 'crash',
      key: 'k',
    });
    // It got its slot by its own re-check: it removed its waiter record itself.
    expect(await (await harness.store.flow()).slots.usage(partition)).toMatchObject({ waiting: 0 });
    unstick();
    await hung;
    expect(await (await harness.store.flow()).slots.usage(partition)).toMatchObject({
      inUse: 0,
      expired: 0,
      waiting: 0,
    });
    expect(runs.get(next.operationId)).toBe(1);
  });

  it('raising a limit takes effect with the workers that carry it; no job is lost, none runs twice', async () => {
    const raised = limitedJob('one-at-a-time', { perKey: 2, recheckMs: 900_000 });
    const ids = ['change-1', 'change-2', 'change-3'].map((operationId) =>
      parseIdentity({ tenantId: 'chg', operationId }),
    );
    const [first, second, third] = ids as [(typeof ids)[0], (typeof ids)[0], (typeof ids)[0]];
    const releaseFirst = gate(first.operationId);
    const releaseSecond = gate(second.operationId);
    const old = harness.worker();
    const upgraded = harness.worker({ jobs: [raised] });
    const body = { account: 'm', tag: 'chg' };
    await harness.send({ ...first, jobType: 'one-at-a-time', payload: body });
    const holdingFirst = harness.poll(old);
    await until(async () => highest.get('chg:key:chg:m') === 1);

    await harness.send({ ...second, jobType: 'one-at-a-time', payload: body });
    const holdingSecond = harness.poll(upgraded); // its limit is 2: it takes the second slot and runs
    await until(async () => highest.get('chg:key:chg:m') === 2);
    await harness.send({ ...third, jobType: 'one-at-a-time', payload: body });
    await harness.poll(old); // the old limit of 1 is full: it waits, not an attempt
    expect(await harness.store.get(third)).toMatchObject({
      state: 'queued',
      attempts: 0,
      errorCode: 'concurrency_wait',
    });

    releaseFirst();
    releaseSecond();
    await Promise.all([holdingFirst, holdingSecond]);
    await harness.poll(old); // the freed slot's wake-up

    for (const identity of ids)
      expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', attempts: 1 });
    for (const identity of ids) expect(runs.get(identity.operationId)).toBe(1);
    expect(highest.get('chg:key:chg:m')).toBe(2);
  });

  it("a per-key slot is the tenant's key: tenant A holding key x does not take tenant B's slot of key x", async () => {
    const holder = parseIdentity({ tenantId: 'scope-a', operationId: 'scope-holder' });
    const other = parseIdentity({ tenantId: 'scope-b', operationId: 'scope-other' });
    const release = gate(holder.operationId);
    await harness.send({ ...holder, jobType: 'one-at-a-time', payload: { account: 'x', tag: 'scope' } });
    const holding = harness.poll(harness.worker());
    await until(async () => highest.get('scope:key:scope-a:x') === 1);
    await harness.send({ ...other, jobType: 'one-at-a-time', payload: { account: 'x', tag: 'scope' } });
    const worker = harness.worker();
    await harness.poll(worker);

    // It ran while tenant A still held its key x: no wait, one attempt.
    expect(await harness.store.get(other)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(worker.telemetry.counts[MetricName.ConcurrencyWaits]).toBeUndefined();
    const slots = (await harness.store.flow()).slots;
    const partitionOf = (tenantId: string) => slots.partitionOf('one-at-a-time', { kind: 'key', tenantId, key: 'x' });
    expect(partitionOf('scope-a')).not.toBe(partitionOf('scope-b'));
    expect(await slots.usage(partitionOf('scope-a'))).toMatchObject({ inUse: 1, waiting: 0 });
    release();
    await holding;
  });

  // Last: its waiters' own 1-second re-checks arrive after it ends, where no other test reads the queue.
  it('never runs more than the per-key and per-tenant limits at once; every job runs once, waits are not attempts', async () => {
    const accounts = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'd'];
    const ids = accounts.map((_, index) => `fan-${index}`);
    for (const [index, account] of accounts.entries())
      await harness.send({
        tenantId: 'noisy',
        operationId: ids[index] ?? '',
        jobType: 'fanout',
        payload: { account, tag: 'fan' },
      });
    const workers = [harness.worker(), harness.worker(), harness.worker()];

    const rows = await drain(workers, ids, 'noisy');

    for (const account of new Set(accounts)) expect(highest.get(`fan:key:noisy:${account}`)).toBe(1);
    expect(highest.get('fan:tenant:noisy')).toBeLessThanOrEqual(2);
    for (const id of ids) expect(runs.get(id)).toBe(1);
    for (const row of rows) expect(row).toMatchObject({ state: 'succeeded', attempts: 1 });
    const waits = workers.reduce((sum, worker) => sum + (worker.telemetry.counts[MetricName.ConcurrencyWaits] ?? 0), 0);
    expect(waits).toBeGreaterThan(0);
    const regranted = workers.reduce(
      (sum, w) => sum + (w.telemetry.counts[MetricName.ConcurrencySlotRegranted] ?? 0),
      0,
    );
    expect(regranted).toBe(0);
    const usage = await (await harness.store.flow()).slots.usage(
      (await harness.store.flow()).slots.partitionOf('fanout', { kind: 'tenant', tenantId: 'noisy' }),
    );
    expect(usage).toMatchObject({ inUse: 0, expired: 0, waiting: 0 });
  });
});

async function until(condition: () => Promise<boolean>, tries = 200): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition never held');
}
