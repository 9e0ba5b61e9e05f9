import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Gate } from '../../infra/testing/gate.js';
import { parseIdentity, type ValidIdentity } from '../../lib/identity.js';
import { defineJob } from '../../lib/job-definition.js';
import { defineSchedule, occurrenceAt } from '../../lib/messaging/schedule.js';
import { tickSchedule } from '../../lib/messaging/schedule-tick.js';
import { WorkState } from '../../lib/states.js';
import { createWorkerHarness, type WorkerHarness } from '../support/worker-harness.js';
import { type ChainPlan, chainPlanArbitrary, type TickCommand } from './support/model/chain-commands.js';
import { emptyReplayTally, HistoryRecorder, replayHistories, replayLine } from './support/replay/history.js';
import { loadModelRelation } from './support/replay/relation.js';
import { ReliabilityReport } from './support/report.js';

const LEASE_MS = 10_000;
const MINUTE = 60_000;
const RUNS = 8;

/** Each attempt's run waits at its gate (keyed by operation and attempt) until the plan resumes that holder. */
const gates = new Map<string, Gate>();
const gateOf = (operationId: string, attempt: number) => {
  const key = `${operationId}#${attempt}`;
  let gate = gates.get(key);
  if (!gate) {
    gate = new Gate();
    gates.set(key, gate);
  }
  return gate;
};

const parent = defineJob({
  type: 'chain-parent',
  version: 1,
  target: 'B',
  leaseMs: LEASE_MS,
  maxAttempts: 10,
  payload: z.strictObject({}),
  run: async (ctx) => {
    await gateOf(ctx.identity.operationId, ctx.attempt).hold();
    ctx.enqueue('chain-child', {}, { name: `from-attempt-${ctx.attempt}` });
    return { outcomeCode: 'done' };
  },
});
const child = defineJob({
  type: 'chain-child',
  version: 1,
  target: 'B',
  payload: z.strictObject({}),
  run: async () => ({ outcomeCode: 'done' }),
});

describe('interleaving model, issue 26: enqueue successor and schedule tick', () => {
  const report = new ReliabilityReport(__filename);
  let harness: WorkerHarness;
  let run = 0;
  const stats = { chainSteps: 0, tickDeliveries: 0 };
  /** Each parent's history (its row after every holder step), replayed through the model's step relation. */
  const relation = loadModelRelation();
  const replay = emptyReplayTally();
  beforeAll(async () => {
    harness = await createWorkerHarness('chain-model', [parent, child]);
  });
  afterAll(async () => {
    console.log(
      `[leasefence reliability] chain model: ${stats.chainSteps} holder steps, ${stats.tickDeliveries} tick deliveries`,
    );
    report.counts.interleavings = stats.chainSteps + stats.tickDeliveries;
    report.counts.historiesReplayed = replay.histories;
    report.counts.stepsReplayed = replay.steps;
    report.counts.illegalSteps = replay.illegal.length;
    console.log(`[leasefence reliability] chain model, ${replayLine(replay)}`);
    await harness.close();
    await report.publish();
  });

  /** Plays the holder steps; each holder's delivery runs until its gate (or ends: its claim was refused). */
  async function playChain(plan: ChainPlan, identity: ValidIdentity): Promise<void> {
    const running = new Map<number, { attempt: number; fence: number; delivery: Promise<unknown> }>();
    const history = new HistoryRecorder();
    const observe = async (events: string[], holderFence?: number) =>
      history.observe(identity.operationId, 'B', events, await harness.store.get(identity), holderFence);
    for (const command of plan.chain) {
      stats.chainSteps += 1;
      if (command.kind === 'expire') {
        harness.clock.advance(LEASE_MS + 1);
      } else if (command.kind === 'start' && !running.has(command.holder)) {
        const before = (await harness.store.get(identity))?.attempts ?? 0;
        await harness.send({ ...identity, jobType: 'chain-parent', payload: {} });
        const worker = harness.worker({ workerId: `holder-${run}-${command.holder}` });
        const delivery = harness.poll(worker, { visibilityTimeoutSeconds: 300 });
        const entered = gateOf(identity.operationId, before + 1).reached.then(() => true);
        const claimed = await Promise.race([entered, delivery.then(() => false)]);
        await observe(['claim']);
        // the holder's fence: the row's, read while it waits at its gate right after its claim
        const fence = (await harness.store.get(identity))?.fence ?? 0;
        if (claimed) running.set(command.holder, { attempt: before + 1, fence, delivery });
      } else if (command.kind === 'resume') {
        const holder = running.get(command.holder);
        if (!holder) continue;
        gateOf(identity.operationId, holder.attempt).release();
        await holder.delivery;
        running.delete(command.holder);
        await observe(['complete'], holder.fence);
      }
    }
    for (const holder of running.values()) {
      gateOf(identity.operationId, holder.attempt).release();
      await holder.delivery;
      await observe(['complete'], holder.fence);
    }
    const illegal = replayHistories(relation, history.all(), replay).illegal;
    expect(illegal, 'every observed step is a step of the model').toEqual([]);
  }

  /** Invariant: a successor exists only if its parent's winning fence completed, and a completed parent has it. */
  async function checkSuccessors(identity: ValidIdentity, attempts: number): Promise<void> {
    const row = await harness.store.get(identity);
    const existing: number[] = [];
    for (let attempt = 1; attempt <= attempts + 1; attempt += 1) {
      const successor = parseIdentity({ ...identity, operationId: `${identity.operationId}/from-attempt-${attempt}` });
      if (await harness.store.get(successor)) existing.push(attempt);
    }
    if (row?.state === WorkState.succeeded) {
      // The winner is the attempt whose fence completed: its claim raised the fence to its attempt number.
      expect(existing).toEqual([row.fence]);
      expect(row.successors).toEqual([`${identity.operationId}/from-attempt-${row.fence}`]);
    } else {
      expect(existing).toEqual([]);
    }
  }

  /** Plays the tick deliveries (copies at once); invariant: one job per tick, created by exactly one delivery. */
  async function playTicks(ticks: readonly TickCommand[], name: string): Promise<void> {
    const schedule = defineSchedule({
      name,
      jobType: 'chain-child',
      tenantId: 'model',
      payload: {},
      expression: 'rate(5 minutes)',
    });
    const base = Date.UTC(2026, 11, 1, 10, 0, 0);
    const created = new Map<number, number>();
    const producer = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloads: harness.payloads,
      delayed: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: [], clock: harness.clock },
    };
    for (const command of ticks) {
      stats.tickDeliveries += command.copies;
      const scheduledAt = base + command.tick * 5 * MINUTE;
      const deliveredAt = scheduledAt + command.lateMinutes * MINUTE;
      harness.clock.set(deliveredAt + 1000);
      const deps = { producer, store: harness.store, schedules: [schedule], clock: harness.clock };
      const outcomes = await Promise.all(
        // A late delivery carries the tick's own time (<aws.scheduler.scheduled-time>); only the clock is later.
        Array.from({ length: command.copies }, () => tickSchedule(deps, name, scheduledAt)),
      );
      const made = outcomes.filter((outcome) => outcome.outcome === 'created').length;
      created.set(command.tick, (created.get(command.tick) ?? 0) + made);
    }
    for (const [tick, count] of created) {
      expect(count, `tick ${tick} created ${count} jobs`).toBe(1);
      const occurrence = occurrenceAt(schedule, base + tick * 5 * MINUTE);
      expect(await harness.store.get(occurrence?.identity as ValidIdentity)).toBeDefined();
    }
  }

  it(`keeps both invariants over ${RUNS} generated runs on the engine`, async () => {
    await fc
      .assert(
        fc.asyncProperty(chainPlanArbitrary, async (plan) => {
          run += 1;
          harness.clock.set(Date.UTC(2026, 11, 1) + run * 3_600_000);
          const identity = parseIdentity({ tenantId: 'model', operationId: `parent-${run}` });
          await playChain(plan, identity);
          await checkSuccessors(identity, plan.chain.length);
          await playTicks(plan.ticks, `model-${run}`);
        }),
        { numRuns: RUNS, seed: Number(process.env.LEASEFENCE_SEED ?? 2026) },
      )
      .catch((error: unknown) => {
        report.add('invariantViolations');
        throw error;
      });
  }, 240_000);
});
