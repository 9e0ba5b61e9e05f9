import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { approveItem } from '../../lib/admin/approve.js';
import { cancelItem } from '../../lib/admin/cancel.js';
import { requiresApproval } from '../../lib/approval-policy.js';
import { payloadHash } from '../../lib/hashing.js';
import type { JobIdentity } from '../../lib/identity.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { serializeEnvelope } from '../../lib/messaging/envelope.js';
import { wakeEnvelope } from '../../lib/messaging/wake-envelope.js';
import type { QueueMessage } from '../../lib/worker/worker-runtime.js';
import type { ConformanceBench } from './bench.js';
import { type Problem, Remedy } from './remedies.js';
import { describe, EffectMeter, judged, type Scenario, ScenarioId, skipped } from './scenario-support.js';
import { freshOperation } from './scenarios-faults.js';
import { changedPayload } from './scenarios-ownership.js';

/*
 * The approval gate's fault tests (issue 26): a job awaiting approval never runs however often its message comes;
 * an approval racing a cancel leaves exactly one outcome; an approval never covers another payload. They apply to
 * job types with an approval gate; the other scenarios run such a job as approved (see bench.ts, ungatedUnless).
 */

/** Times a waiting job's message is delivered, and rounds of the approve/cancel race. */
const DELIVERIES = 5;
const RACE_ROUNDS = 5;

const OPERATOR = { actor: 'conformance-operator', reason: 'conformance scenario' };

const hasGate = (job: JobDefinition<unknown>) => job.approval !== undefined;

/** Why the sample cannot drive an approval scenario (its payload needs no approval), or undefined. */
function ungatedSample(bench: ConformanceBench, payload: unknown): string | undefined {
  const parsed = z.safeParse(bench.job.payload, payload);
  if (parsed.success && requiresApproval(bench.job.approval, parsed.data)) return undefined;
  return 'not evaluated: this sample payload needs no approval (give one the approval predicate gates)';
}

/** A wake-up message for the identity's row, as the sweeper or an approval sends it. */
async function wakeMessage(identity: JobIdentity, bench: ConformanceBench): Promise<QueueMessage> {
  const row = await bench.row(identity);
  if (!row) throw new Error('no row to wake');
  return { messageId: `wake-${randomUUID()}`, body: serializeEnvelope(wakeEnvelope(row)) };
}

/** A fresh operation delivered once to a gated worker: its row should now await approval. */
async function awaitingOperation(bench: ConformanceBench, label: string, payload: unknown) {
  const { identity, message } = await freshOperation(bench, label, payload);
  const gated = await bench.worker(`${label}-gated`, { gated: true });
  const first = await gated.deliver(message);
  const state = String((await bench.row(identity))?.state);
  return { identity, message, gated, first, state };
}

/** The job's first message and wake-ups, delivered many times: every one acknowledged, run() never called. */
const approvalNeverRuns: Scenario = {
  id: ScenarioId.approvalNeverRuns,
  title: 'a job awaiting approval never runs, however often its message or a wake-up is delivered',
  applies: hasGate,
  run: async (bench, [payload]) => {
    const ungated = ungatedSample(bench, payload);
    if (ungated) return skipped(ungated, Remedy.completingSample);
    const meter = await EffectMeter.start(bench);
    const { identity, message, gated, first, state } = await awaitingOperation(bench, 'awaiting', payload);
    const deliveries = [first];
    for (let copy = 1; copy < DELIVERIES; copy += 1) {
      deliveries.push(await gated.deliver(copy % 2 === 0 ? message : await wakeMessage(identity, bench)));
    }
    bench.expireLease();
    deliveries.push(await gated.deliver(await wakeMessage(identity, bench)));
    await meter.checkpoint();
    const row = await bench.row(identity);
    const runs = bench.runAttempts(identity).length;
    const effects = meter.count();
    const evidence = { deliveries: deliveries.length, state: String(row?.state), runs, effects };
    const problems: Problem[] = [
      ...(state !== 'awaiting_approval' || row?.state !== 'awaiting_approval'
        ? [{ text: `the job was ${state}, then ${row?.state}, not awaiting_approval`, remedy: Remedy.runtime }]
        : []),
      ...(deliveries.some((delivery) => !delivery.acked)
        ? [
            {
              text: `deliveries: ${deliveries.map(describe).join(', ')} (each must be acknowledged)`,
              remedy: Remedy.runtime,
            },
          ]
        : []),
      ...(runs > 0 || effects > 0 || (row?.attempts ?? 0) > 0
        ? [{ text: `run() called ${runs} times, ${effects} effects before any approval`, remedy: Remedy.runtime }]
        : []),
    ];
    return judged(
      problems,
      `${deliveries.length} deliveries acknowledged, still awaiting approval, nothing run`,
      evidence,
    );
  },
};

/** One round of the race: which calls won, and the row and runs once a worker was woken. */
async function raceRound(bench: ConformanceBench, payload: unknown, round: number): Promise<Problem[]> {
  const { identity, state } = await awaitingOperation(bench, `race-${round}`, payload);
  if (state !== 'awaiting_approval') return [{ text: `round ${round}: the job was ${state}`, remedy: Remedy.runtime }];
  const deps = bench.admin();
  const [approved, cancelled] = await Promise.allSettled([
    approveItem(deps, identity, { ...OPERATOR, payloadHash: payloadHash(payload) }),
    cancelItem(deps, identity, OPERATOR),
  ]);
  const worker = await bench.worker(`race-${round}-after`);
  await worker.deliver(await wakeMessage(identity, bench));
  const row = await bench.row(identity);
  const runs = bench.runAttempts(identity).length;
  const actions = (row?.audit ?? []).map((entry) => entry.action).join(' ▶ ');
  const seen = `round ${round}: approve ${approved.status}, cancel ${cancelled.status}, audit ${actions || 'none'}, ${row?.state}, ${runs} runs`;
  const cancelWon = cancelled.status === 'fulfilled';
  // A cancel after the approval committed (it read queued) is a second, later decision, not a lost race.
  const consistent =
    (approved.status === 'fulfilled' || cancelWon) &&
    (cancelWon ? row?.state === 'cancelled' && runs === 0 : row?.state === 'succeeded' && runs === 1) &&
    (approved.status === 'rejected' || actions.startsWith('approve')) &&
    actions.split(' ▶ ').length === (approved.status === 'fulfilled' ? 1 : 0) + (cancelWon ? 1 : 0);
  return consistent ? [] : [{ text: seen, remedy: Remedy.runtime }];
}

/** An approval and a cancel sent together (Promise.all against the engine), repeated: exactly one outcome each time. */
const approvalRacingCancel: Scenario = {
  id: ScenarioId.approvalRacingCancel,
  title: 'an approval racing a cancel leaves exactly one outcome (run once, or cancelled and never run)',
  applies: hasGate,
  run: async (bench, [payload]) => {
    const ungated = ungatedSample(bench, payload);
    if (ungated) return skipped(ungated, Remedy.completingSample);
    const problems: Problem[] = [];
    for (let round = 1; round <= RACE_ROUNDS; round += 1) problems.push(...(await raceRound(bench, payload, round)));
    return judged(problems, `${RACE_ROUNDS} rounds, each one outcome`, { rounds: RACE_ROUNDS });
  },
};

/**
 * The approver saw another payload (the one a producer sent later under the same identity, or an edited copy): the
 * approval names its hash and is refused with nothing changed. The approval of the row's own hash then runs the job
 * once, on the body that hashes to it (the worker re-verifies the body, so no other body can run under it).
 */
const approvalReplacedPayload: Scenario = {
  id: ScenarioId.approvalReplacedPayload,
  title: 'an approval never covers another payload (refused for another hash, nothing changed)',
  applies: hasGate,
  run: async (bench, payloads) => {
    const [payload] = payloads;
    const ungated = ungatedSample(bench, payload);
    if (ungated) return skipped(ungated, Remedy.completingSample);
    const { identity, state } = await awaitingOperation(bench, 'replaced', payload);
    const before = await bench.row(identity);
    const deps = bench.admin();
    const approve = (hash: string) =>
      approveItem(deps, identity, { ...OPERATOR, payloadHash: hash }).then(
        () => 'approved',
        (error: { refusal?: string }) => error.refusal ?? 'error',
      );
    const refusal = await approve(payloadHash(changedPayload(payloads)));
    const unchanged = JSON.stringify(await bench.row(identity)) === JSON.stringify(before);
    const own = await approve(payloadHash(payload));
    const worker = await bench.worker('replaced-after');
    await worker.deliver(await wakeMessage(identity, bench));
    const row = await bench.row(identity);
    const runs = bench.runAttempts(identity).length;
    const evidence = { refusal, unchanged, own, state: String(row?.state), runs };
    const problems: Problem[] = [
      ...(state !== 'awaiting_approval' ? [{ text: `the job was ${state}`, remedy: Remedy.runtime }] : []),
      ...(refusal !== 'payload_hash_mismatch' || !unchanged
        ? [{ text: `approval for another hash: ${refusal}, row unchanged: ${unchanged}`, remedy: Remedy.runtime }]
        : []),
      ...(own !== 'approved' || runs !== 1
        ? [
            {
              text: `approval of its own hash: ${own}; then ran ${runs} times, ended ${row?.state}`,
              remedy: Remedy.runtime,
            },
          ]
        : []),
    ];
    return judged(
      problems,
      'refused for another hash with nothing changed; its own hash approved and run once',
      evidence,
    );
  },
};

/** The approval scenarios, in the order they run. */
const APPROVAL_SCENARIOS: readonly Scenario[] = [approvalNeverRuns, approvalRacingCancel, approvalReplacedPayload];

export { APPROVAL_SCENARIOS };
