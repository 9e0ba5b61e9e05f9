import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { examplesTableDefinition } from '../../../examples/jobs/examples-table.js';
import { toSqsEvent } from '../../../infra/local/sqs-event-source.js';
import { LeaseInDoubtError, OwnershipLostError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { parseLease, parseLeaseDuration, parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import { silentTelemetry } from '../../../lib/telemetry.js';
import { LeaseKeeper } from '../../../lib/worker/lease-keeper.js';
import { testDocumentClient, uniqueName } from '../../support/engine.js';
import { FakeGateway, waitUntil } from '../../support/fake-external.js';
import { countRequests } from '../../support/request-counter.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const LEASE_MS = 5_000;
const recordsTable = uniqueName('doubt-records');

/** What the job saw when it tried to start each kind of effect after the gate opened. */
interface Attempts {
  signalReason?: unknown;
  records?: unknown;
  step?: unknown;
  transactions?: unknown;
  /** A declared effect method of ctx.provider, and a lookup (not an effect). */
  providerEffect?: unknown;
  providerLookup?: unknown;
  stepBodyRan: boolean;
}
let attempts: Attempts = { stepBodyRan: false };
let running = false;
let openGate: () => void = () => {};
let progress: () => void = () => {};
let finished: Promise<void> = Promise.resolve();
const gateway = new FakeGateway();

/** Waits at a gate the test opens, then tries a record write, a step, a transaction step and a provider effect. */
const careful = defineJob({
  type: 'careful',
  version: 1,
  target: 'B',
  leaseMs: LEASE_MS,
  payload: z.strictObject({ n: z.number() }),
  provider: { create: () => gateway, effects: ['charge'] },
  run: async (ctx) => {
    progress = () => ctx.progress();
    running = true;
    let done: () => void = () => {};
    finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    await new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const ref = { tableName: recordsTable, key: { pk: `doubt#${ctx.identity.operationId}`, sk: 'r' } };
    attempts.records = await ctx.records.write(ref, { set: { n: ctx.payload.n } }).catch((error: unknown) => error);
    attempts.signalReason = ctx.signal.reason;
    attempts.step = await ctx
      .step('send', async () => {
        attempts.stepBodyRan = true;
        return 'sent';
      })
      .catch((error: unknown) => error);
    attempts.transactions = await ctx.transactions.runStep('reserve', []).catch((error: unknown) => error);
    attempts.providerEffect = await ctx.provider
      .charge(ctx.idempotencyKey, ctx.payload.n)
      .catch((error: unknown) => error);
    attempts.providerLookup = await ctx.provider.lookup(ctx.idempotencyKey).catch((error: unknown) => error);
    done();
    return { outcomeCode: 'done' };
  },
});

describe('lease doubt stops new effects', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    const client = testDocumentClient();
    await client.send(new CreateTableCommand(examplesTableDefinition(recordsTable)));
    client.destroy();
    harness = await createWorkerHarness('doubt', [careful]);
  });
  afterAll(async () => {
    await harness.client.send(new DeleteTableCommand({ TableName: recordsTable }));
    await harness.close();
  });

  /** A `careful` item created queued, then claimed by `owner` through the store (no worker runs it). */
  async function queuedThenClaimed(operationId: string, n: number, owner: string) {
    const identity = parseIdentity({ tenantId: 'ops', operationId });
    await harness.store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'careful',
        payloadHash: payloadHash({ n }),
        payloadRef: 'ref',
        maxAttempts: 3,
      }),
    );
    const claimed = await harness.store.claim(identity, parseLease({ owner, leaseMs: LEASE_MS }));
    if (!claimed.claimed) throw new Error('expected a claim');
    return { identity, claim: claimed.claim };
  }

  /** Delivers one job to a fresh worker (heartbeat checks every `intervalMs`, 0 = none) and waits until it runs. */
  async function start(operationId: string, intervalMs: number) {
    attempts = { stepBodyRan: false };
    running = false;
    const payload = { n: 1 };
    const hash = payloadHash(payload);
    await harness.payloads.put({ tenantId: 'ops', operationId }, payload, hash);
    const body = JSON.stringify({
      v: 1,
      kind: 'job',
      tenantId: 'ops',
      operationId,
      jobType: 'careful',
      payloadHash: hash,
      payload: { inline: true },
    });
    const worker = harness.worker({ workerId: `w-${operationId}` });
    const runtime = worker.runtime as unknown as { options: { heartbeatIntervalMs?: number } };
    runtime.options.heartbeatIntervalMs = intervalMs;
    const response = worker(toSqsEvent([{ MessageId: `m-${operationId}`, ReceiptHandle: 'r', Body: body }], 'arn:q'));
    expect(await waitUntil(() => running)).toBe(true);
    return { worker, response };
  }

  /**
   * Every effect refused with LeaseInDoubtError (the provider's effect method before the provider is called; its
   * lookup still answers), no step body run, no request sent by the job's attempts, each refusal counted.
   */
  function expectRefusedWithoutRequests(
    requests: ReturnType<typeof countRequests>,
    worker: { telemetry: { counts: Record<string, number> } },
    chargeCallsBefore: number,
  ) {
    expect(attempts.signalReason).toBeInstanceOf(LeaseInDoubtError);
    expect(attempts.records).toBeInstanceOf(LeaseInDoubtError);
    expect(attempts.step).toBeInstanceOf(LeaseInDoubtError);
    expect(attempts.transactions).toBeInstanceOf(LeaseInDoubtError);
    expect(attempts.providerEffect).toBeInstanceOf(LeaseInDoubtError);
    expect(gateway.chargeCalls).toBe(chargeCallsBefore);
    expect(attempts.providerLookup).toBeUndefined();
    expect(attempts.stepBodyRan).toBe(false);
    expect(requests.total()).toBe(0);
    expect(worker.telemetry.counts.EffectRefusedInLeaseDoubt).toBe(4);
  }

  it('a failed renewal: the signal aborts, nothing starts, the attempt ends without completing, a metric counts it', async () => {
    const identity = parseIdentity({ tenantId: 'ops', operationId: 'renewal-fails' });
    const { worker, response } = await start(identity.operationId, 10);
    let failRenewals = true;
    worker.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (failRenewals && context.commandName === 'UpdateItemCommand') throw new Error('connection reset');
        return next(args);
      },
      { step: 'initialize', name: 'fail-renewals' },
    );
    progress();
    expect(await waitUntil(() => (worker.telemetry.counts.LeaseRenewalFailed ?? 0) >= 1)).toBe(true);
    failRenewals = false;
    const requests = countRequests(worker.client);
    const chargeCalls = gateway.chargeCalls;

    openGate();
    await finished;
    const answer = await response;

    expectRefusedWithoutRequests(requests, worker, chargeCalls);
    expect(answer.batchItemFailures).toEqual([]);
    expect(worker.telemetry.counts.LeaseRenewalFailed).toBe(1);
    expect(worker.telemetry.counts.Succeeded ?? 0).toBe(0);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'claimed', fence: 1, steps: {} });
  });

  it('the local lease deadline passes without a confirmed renewal: nothing starts, nothing is written', async () => {
    const identity = parseIdentity({ tenantId: 'ops', operationId: 'deadline-passes' });
    const { worker, response } = await start(identity.operationId, 0);
    const before = await harness.store.get(identity);
    harness.clock.advance(LEASE_MS);
    const requests = countRequests(worker.client);
    const chargeCalls = gateway.chargeCalls;

    openGate();
    await finished;
    const answer = await response;

    expectRefusedWithoutRequests(requests, worker, chargeCalls);
    expect(answer.batchItemFailures).toEqual([]);
    expect(await harness.store.get(identity)).toEqual(before);
  });

  it('with its timers running, the keeper enters doubt when the local deadline passes, with no call from the job', async () => {
    const { claim } = await queuedThenClaimed('deadline-timer', 3, 'w');
    const doubts: LeaseInDoubtError[] = [];
    const keeper = new LeaseKeeper({
      store: harness.store,
      // The lease ends 30 ms from now on the store's clock.
      claim: { ...claim, leaseExpiresAt: harness.clock.now() + 30 },
      leaseMs: parseLeaseDuration(LEASE_MS),
      intervalMs: 60_000,
      telemetry: silentTelemetry,
      onOwnershipLost: () => {},
      onDoubt: (error) => doubts.push(error),
    });

    keeper.start();
    harness.clock.advance(30); // the lease ends on the store's clock; the job makes no call at all
    const entered = await waitUntil(() => doubts.length === 1);
    await keeper.stop();

    expect(entered).toBe(true);
    expect(keeper.doubt()).toBe(doubts[0]);
  });

  it('a renewal that arrives after the lease expired is refused, even when nobody has taken over', async () => {
    const { identity, claim } = await queuedThenClaimed('late-renewal', 2, 'slow-worker');
    harness.clock.advance(LEASE_MS + 1);
    const expired = await harness.store.get(identity);

    const late = await harness.store.heartbeat(claim, parseLeaseDuration(LEASE_MS)).catch((error: unknown) => error);

    expect(late).toBeInstanceOf(OwnershipLostError);
    expect(await harness.store.get(identity)).toEqual(expired);
    const takeover = await harness.store.claim(identity, parseLease({ owner: 'next-worker', leaseMs: LEASE_MS }));
    expect(takeover).toMatchObject({ claimed: true, claim: { fence: 2, takeover: true } });
  });
});
