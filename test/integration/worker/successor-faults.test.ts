import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import * as z from 'zod';
import { Gate } from '../../../infra/testing/gate.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { WorkState } from '../../../lib/states.js';
import { requireNoTransactions, requireTransactions } from '../../support/capability.js';
import { expectState } from '../../support/expectations.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const LEASE_MS = 30_000;
const gates = new Map<string, Gate>();

// Each attempt asks for a successor named after itself, so the stale holder's request is told from the takeover's.
const fanOut = defineJob({
  type: 'fan-out',
  version: 1,
  target: 'B',
  leaseMs: LEASE_MS,
  maxAttempts: 3,
  payload: z.strictObject({}),
  run: async (ctx) => {
    if (ctx.attempt === 1) await gates.get(ctx.identity.operationId)?.hold();
    ctx.enqueue('leaf', {}, { name: `from-attempt-${ctx.attempt}` });
    return { outcomeCode: 'fanned_out' };
  },
});
const leaf = defineJob({
  type: 'leaf',
  version: 1,
  target: 'B',
  payload: z.strictObject({}),
  run: async () => ({ outcomeCode: 'leaf' }),
});

describe('fault: a stale holder enqueues no successor (seed 002: the chain under the fence)', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('successor-faults', [fanOut, leaf]);
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Holder A pauses inside run past its lease; B takes over and completes; A resumes and asks for its successor. */
  async function staleHolderEnqueue(operationId: string) {
    const identity = parseIdentity({ tenantId: 'acme', operationId });
    const gate = new Gate();
    gates.set(operationId, gate);
    await harness.send({ tenantId: 'acme', operationId, jobType: 'fan-out', payload: {} });
    const stale = harness.poll(harness.worker({ workerId: 'holder-a' }), { visibilityTimeoutSeconds: 120 });
    await gate.reached;
    harness.clock.advance(LEASE_MS + 1_000);
    // The redelivery the expired lease allows (the sweeper's re-signal), taken by another container.
    await harness.send({ tenantId: 'acme', operationId, jobType: 'fan-out', payload: {} });
    await harness.poll(harness.worker({ workerId: 'holder-b' }));
    await expectState(harness.store, identity, WorkState.succeeded);
    gate.release();
    await stale;
    return identity;
  }

  async function expectOnlyTheWinnersSuccessor(identity: ReturnType<typeof parseIdentity>) {
    const parent = await expectState(harness.store, identity, WorkState.succeeded);
    expect(parent.successors).toEqual([`${identity.operationId}/from-attempt-2`]);
    expect(parent.fence).toBe(2);
    const winner = parseIdentity({ tenantId: 'acme', operationId: `${identity.operationId}/from-attempt-2` });
    const loser = parseIdentity({ tenantId: 'acme', operationId: `${identity.operationId}/from-attempt-1` });
    await expectState(harness.store, winner, WorkState.queued);
    expect(await harness.store.get(loser)).toBeUndefined();
    expect(await harness.payloads.get(loser)).toBeUndefined();
  }

  it('durable-step path (no transactions): the stale fence refuses the step, so nothing is written', async (context: TestContext) => {
    requireNoTransactions(context);
    await expectOnlyTheWinnersSuccessor(await staleHolderEnqueue('chain-step'));
  });

  it("transaction path: the successors ride in the stale holder's refused completion, so nothing is written", async (context: TestContext) => {
    requireTransactions(context);
    await expectOnlyTheWinnersSuccessor(await staleHolderEnqueue('chain-tx'));
  });
});
