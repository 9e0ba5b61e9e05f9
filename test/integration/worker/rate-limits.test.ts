import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { budgetScopeValue } from '../../../lib/flow-control/budget-scope.js';
import type { RateLimitDeclaration } from '../../../lib/flow-control/rate-limits.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/** A run as the job saw it: which operation, at what clock value, in which attempt. */
interface Run {
  op: string;
  at: number;
  attempt: number;
}
const runs: Record<string, Run[]> = { metered: [], paced: [], slow: [], account: [] };
let harness: WorkerHarness;

function recorder(kind: keyof typeof runs) {
  return (ctx: { identity: { operationId: string }; attempt: number }) => {
    runs[kind]?.push({ op: ctx.identity.operationId, at: harness.clock.now(), attempt: ctx.attempt });
  };
}

// 2 calls a second across the deployment (burst 1: never more than 2 in any second), taken before the claim.
const acmeApi = { provider: 'acme-api', limit: 2, intervalMs: 1_000 } as const;
const metered = defineJob({
  type: 'metered-call',
  version: 1,
  target: 'B',
  maxAttempts: 1,
  payload: z.strictObject({ n: z.number() }),
  flow: { rateLimit: acmeApi },
  run: async (ctx) => {
    recorder('metered')(ctx);
    return { outcomeCode: 'called' };
  },
});
// One call per 500 ms: the next token is closer than the in-process bound, so a second job waits in process.
const paced = defineJob({
  type: 'paced-call',
  version: 1,
  target: 'B',
  payload: z.strictObject({ n: z.number() }),
  flow: { rateLimit: { provider: 'paced-api', limit: 1, intervalMs: 500, scope: 'tenant' } },
  run: async (ctx) => {
    recorder('paced')(ctx);
    return { outcomeCode: 'called' };
  },
});
// One call a minute, taken by the job itself right before the call; one attempt only.
const slow = defineJob({
  type: 'slow-call',
  version: 1,
  target: 'B',
  maxAttempts: 1,
  payload: z.strictObject({ account: z.string() }),
  flow: {
    rateLimit: {
      provider: 'slow-api',
      limit: 1,
      intervalMs: 60_000,
      scope: 'key',
      key: (payload: { account: string }) => payload.account,
      take: 'in-job',
    },
  },
  run: async (ctx) => {
    await ctx.step('prepare', async () => 'ready');
    await ctx.rateLimit('slow-api');
    recorder('slow')(ctx);
    return { outcomeCode: 'called' };
  },
});

// One call an hour per account: per tenant's account by default, or one budget per account across tenants.
const perAccount = {
  provider: 'account-api',
  limit: 1,
  intervalMs: 3_600_000,
  scope: 'key',
  key: (payload: { account: string }) => payload.account,
} as const;
function accountCall(type: string, rateLimit: RateLimitDeclaration<{ account: string }>) {
  return defineJob({
    type,
    version: 1,
    target: 'B',
    maxAttempts: 1,
    payload: z.strictObject({ account: z.string() }),
    flow: { rateLimit },
    run: async (ctx) => {
      recorder('account')(ctx);
      return { outcomeCode: 'called' };
    },
  });
}
const tenantAccount = accountCall('tenant-account-call', perAccount);
const sharedAccount = accountCall('shared-account-call', {
  ...perAccount,
  provider: 'shared-account-api',
  acrossTenants: true,
});

/** The most runs any window [t, t + windowMs) holds, t ranging over the runs themselves. */
function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + windowMs) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

const noWait = async () => {};

describe('provider rate limits: a job over budget waits before the call, using no attempt, never failed or lost', () => {
  // A harness (tables, queue) per test: a deferred job's delayed wake-up never reaches the next test.
  beforeEach(async () => {
    harness = await createWorkerHarness('rate', [metered, paced, slow, tenantAccount, sharedAccount]);
  });
  afterEach(async () => {
    await harness.close();
  });

  it('three workers against one budget: every job runs once, no second holds more runs than the budget', async () => {
    const workers = ['w1', 'w2', 'w3'].map((workerId) => harness.worker({ workerId, sleep: noWait }));
    const ids = Array.from({ length: 6 }, (_, n) => ({ tenantId: `t${n % 3}`, operationId: `metered-${n}`, n }));
    const done = () => new Set(runs.metered?.map((run) => run.op));
    // Each round: a producer (re)sends every job not run yet, the three workers drain the queue concurrently, and
    // the clock moves 250 ms (it stands still within a round: a run's time is its token's time).
    for (let round = 0; round < 40 && done().size < ids.length; round += 1) {
      for (const { n, ...identity } of ids.filter((id) => !done().has(id.operationId))) {
        await harness.send({ ...identity, jobType: 'metered-call', payload: { n } });
      }
      for (;;) {
        const polled = await Promise.all(workers.map((worker) => harness.poll(worker)));
        expect(polled.every((result) => result.failed === 0)).toBe(true);
        if (polled.every((result) => result.received === 0)) break;
      }
      harness.clock.advance(250);
    }
    const metered = runs.metered ?? [];
    expect(metered.map((run) => run.op).sort()).toEqual(ids.map((id) => id.operationId).sort());
    expect(
      busiestWindow(
        metered.map((run) => run.at),
        acmeApi.intervalMs,
      ),
    ).toBeLessThanOrEqual(acmeApi.limit);
    // The jobs that waited used no attempt: each ran in its first, and maxAttempts is 1.
    expect(metered.every((run) => run.attempt === 1)).toBe(true);
    for (const { n: _n, ...identity } of ids) {
      expect(await harness.store.get(parseIdentity(identity))).toMatchObject({ state: 'succeeded', attempts: 1 });
    }
    const deferred = workers.reduce((sum, worker) => sum + (worker.telemetry.counts.RateLimitDeferred ?? 0), 0);
    expect(deferred).toBeGreaterThan(0);
    expect(workers.every((worker) => worker.telemetry.counts.Quarantined === undefined)).toBe(true);
    expect(await harness.queueDepth(harness.dlqUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('a token due sooner than the in-process bound: the job waits in process and runs, no deferral', async () => {
    const worker = harness.worker({ sleep: async (ms) => harness.clock.advance(ms) });
    const before = harness.clock.now();
    for (const n of [1, 2]) {
      await harness.send({ tenantId: 'acme', operationId: `paced-${n}`, jobType: 'paced-call', payload: { n } });
    }
    // The batch's two records run concurrently: one takes the token, the other sleeps until the next.
    expect(await harness.poll(worker)).toEqual({ received: 2, failed: 0, deleted: 2 });
    const paced = runs.paced ?? [];
    expect(paced).toHaveLength(2);
    expect(worker.telemetry.counts).toMatchObject({ RateLimitWaited: 1, Succeeded: 2 });
    expect(worker.telemetry.counts.RateLimitDeferred).toBeUndefined();
    // The wait slept at least until the next token (the clock moves only in the sleep here).
    expect(harness.clock.now() - before).toBeGreaterThanOrEqual(500);
  });

  it('ctx.rateLimit past the in-process bound: the attempt is given back, the job waits queued, then runs once', async () => {
    const worker = harness.worker({ sleep: noWait });
    const first = { tenantId: 'acme', operationId: 'slow-1', jobType: 'slow-call', payload: { account: 'acct-9' } };
    const second = { ...first, operationId: 'slow-2' };
    const other = { ...first, operationId: 'slow-3', payload: { account: 'acct-7' } };
    for (const job of [first, second, other]) await harness.send(job);
    for (let round = 0; round < 5; round += 1) {
      expect((await harness.poll(worker)).failed).toBe(0);
      if ((runs.slow?.length ?? 0) + (worker.telemetry.counts.RateLimitDeferred ?? 0) >= 3) break;
    }
    // acct-9's budget had one token (one of its two jobs ran); acct-7 has its own budget and ran too.
    const ran = (runs.slow ?? []).map((run) => run.op).sort();
    expect(ran).toHaveLength(2);
    expect(ran[1]).toBe('slow-3');
    expect(['slow-1', 'slow-2']).toContain(ran[0]);
    expect(worker.telemetry.counts.RateLimitDeferred).toBe(1);
    const waiting = (runs.slow ?? []).some((run) => run.op === 'slow-1') ? second : first;
    const waitingId = parseIdentity({ tenantId: waiting.tenantId, operationId: waiting.operationId });
    const row = await harness.store.get(waitingId);
    // Queued again with its attempt given back (maxAttempts is 1: a used attempt would have failed it) and the
    // step it recorded kept.
    expect(row).toMatchObject({ state: 'queued', attempts: 0, errorCode: 'rate_limited' });
    expect(row?.steps?.prepare).toBeDefined();
    // Recorded as the waiter of its key's budget (acme's acct-9), which the operator's read counts.
    const budget = { provider: 'slow-api', scope: budgetScopeValue({ kind: 'key', key: 'acct-9', tenantId: 'acme' }) };
    expect(await harness.store.budgetWaiters(budget)).toEqual({ waiting: 1, oldestWaitingSince: harness.clock.now() });

    // Past the wait (the budget's minute plus the spread, up to about 6 minutes: the row says when it is due), the
    // producer's replay (or the wake-up) runs it once. (A fixed 200 s was short of the spread in about 1 run in 3.)
    const dueInMs = Number(row?.availableAt) - harness.clock.now();
    expect(dueInMs).toBeGreaterThan(0);
    harness.clock.advance(dueInMs);
    await harness.send(waiting);
    for (let round = 0; round < 5 && (runs.slow?.length ?? 0) < 3; round += 1) await harness.poll(worker);
    expect(runs.slow?.filter((run) => run.op === waiting.operationId)).toHaveLength(1);
    expect(await harness.store.get(waitingId)).toMatchObject({ state: 'succeeded', attempts: 1 });
    // Its token granted, its waiter is forgotten and how long it waited emitted.
    expect(await harness.store.budgetWaiters(budget)).toEqual({ waiting: 0 });
    expect(worker.telemetry.counts.RateLimitWaitSeconds).toBe(dueInMs / 1000);
  });

  it("a key-scoped budget is the tenant's key: tenant A's jobs cannot empty tenant B's budget of the same key", async () => {
    const worker = harness.worker({ sleep: noWait });
    const job = (tenantId: string, jobType: string) =>
      harness.send({ tenantId, operationId: `${jobType}-${tenantId}`, jobType, payload: { account: 'acct-1' } });
    // Tenant A takes the hour's only token of its acct-1; tenant B's acct-1 is its own budget: it runs too.
    await job('tenant-a', 'tenant-account-call');
    expect(await harness.poll(worker)).toMatchObject({ received: 1, failed: 0 });
    await job('tenant-b', 'tenant-account-call');
    expect(await harness.poll(worker)).toMatchObject({ received: 1, failed: 0 });
    expect(worker.telemetry.counts.RateLimitDeferred).toBeUndefined();
    expect((runs.account ?? []).map((run) => run.op)).toEqual([
      'tenant-account-call-tenant-a',
      'tenant-account-call-tenant-b',
    ]);

    // Declared acrossTenants: one budget per key for every tenant, so tenant B's job waits behind tenant A's token.
    await job('tenant-a', 'shared-account-call');
    expect(await harness.poll(worker)).toMatchObject({ received: 1, failed: 0 });
    await job('tenant-b', 'shared-account-call');
    expect(await harness.poll(worker)).toMatchObject({ received: 1, failed: 0 });
    expect(worker.telemetry.counts.RateLimitDeferred).toBe(1);
    expect(runs.account).toHaveLength(3);
    const waiting = parseIdentity({ tenantId: 'tenant-b', operationId: 'shared-account-call-tenant-b' });
    expect(await harness.store.get(waiting)).toMatchObject({ state: 'queued', attempts: 0 });
  });
});
