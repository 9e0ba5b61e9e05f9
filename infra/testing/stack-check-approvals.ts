import { cancelItem } from '../../lib/admin/cancel.js';
import { payloadHash } from '../../lib/hashing.js';
import type { JobIdentity } from '../../lib/identity.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { FINISHED_STATES, WorkState } from '../../lib/states.js';
import type { WorkItem } from '../../lib/store/index.js';
import { Remedy } from './remedies.js';
import { changedPayload } from './scenarios-ownership.js';
import {
  approveAsCheck,
  CHECK_OPERATOR,
  completed,
  failed,
  fingerprint,
  gated,
  notEvaluated,
  OPERATION,
  passed,
  STACK_TOO_SLOW,
  type StackOutcome,
  type StackScenario,
  StackScenarioId,
} from './stack-check-support.js';
import type { StackProbe } from './stack-probe.js';

/** Copies and wake-ups of a waiting job's message, and rounds of the approve/cancel race. */
const WAITING_DELIVERIES = 4;
const RACE_ROUNDS = 2;

const hasGate = (job: JobDefinition<unknown>) => job.approval !== undefined;

const UNGATED_SAMPLE = 'this sample payload needs no approval (give one the approval predicate gates)';

/** A fresh job sent through the stack and left waiting: its row, or an outcome saying why it is not waiting. */
async function waitingJob(
  probe: StackProbe,
  job: JobDefinition<unknown>,
  label: string,
  payload: unknown,
): Promise<{ identity: JobIdentity; row: WorkItem } | StackOutcome> {
  if (!gated(job, payload)) return notEvaluated(UNGATED_SAMPLE, Remedy.completingSample);
  const identity = { tenantId: await probe.tenant(label, payload), operationId: OPERATION };
  const row = await completed(probe, job, identity, payload, false);
  if (row.state !== WorkState.awaiting_approval)
    return failed(`the gated job was ${row.state}, not awaiting_approval`, Remedy.runtime);
  return { identity, row };
}

/** The row once the stack's worker finished it after a decision; undefined when it did not in time. */
const finished = (probe: StackProbe, identity: JobIdentity) =>
  probe.rowWhen(identity, (row) => FINISHED_STATES.includes(row.state));

/** A waiting job's message and wake-ups delivered again and again: every one handled, run() never called. */
const approvalNeverRuns: StackScenario = {
  id: StackScenarioId.approvalNeverRuns,
  title: 'a job awaiting approval never runs, however often its message or a wake-up is delivered',
  applies: hasGate,
  run: async (probe, job, [payload]) => {
    const waiting = await waitingJob(probe, job, 'awaiting', payload);
    if ('status' in waiting) return waiting;
    const { identity, row } = waiting;
    for (let copy = 0; copy < WAITING_DELIVERIES; copy += 1) {
      await (copy % 2 === 0 ? probe.send(job, identity, payload) : probe.sendWake(row));
    }
    if (!(await probe.drained()))
      return notEvaluated(
        "the stack's queue never drained, so the copies may not have been handled yet",
        STACK_TOO_SLOW,
      );
    const after = await probe.row(identity);
    const evidence = {
      deliveries: WAITING_DELIVERIES + 1,
      state: String(after?.state),
      attempts: after?.attempts ?? 0,
    };
    if (fingerprint(after) !== fingerprint(row)) {
      return failed(
        `the waiting job changed: now ${after?.state}, ${after?.attempts} attempts`,
        Remedy.runtime,
        evidence,
      );
    }
    return passed(`${WAITING_DELIVERIES + 1} deliveries handled, still awaiting approval, never claimed`, evidence);
  },
};

/** An approval for another payload hash is refused with nothing changed; its own hash then runs it once. */
const approvalReplacedPayload: StackScenario = {
  id: StackScenarioId.approvalReplacedPayload,
  title: 'an approval never covers another payload (refused for another hash, nothing changed)',
  applies: hasGate,
  run: async (probe, job, payloads) => {
    const waiting = await waitingJob(probe, job, 'replaced', payloads[0]);
    if ('status' in waiting) return waiting;
    const { identity, row } = waiting;
    const approve = (hash: string) =>
      approveAsCheck(probe, identity, hash).then(
        () => 'approved',
        (error: { refusal?: string }) => error.refusal ?? 'error',
      );
    const refusal = await approve(payloadHash(changedPayload(payloads)));
    const unchanged = fingerprint(await probe.row(identity)) === fingerprint(row);
    const own = await approve(payloadHash(payloads[0]));
    const after = await finished(probe, identity);
    if (!after) return notEvaluated("the stack's worker did not run the approved job in time", STACK_TOO_SLOW);
    const evidence = { refusal, unchanged, own, state: after.state, attempts: after.attempts };
    if (refusal !== 'payload_hash_mismatch' || !unchanged) {
      return failed(`approval for another hash: ${refusal}, row unchanged: ${unchanged}`, Remedy.runtime, evidence);
    }
    if (own !== 'approved' || after.state !== WorkState.succeeded || after.attempts !== 1) {
      return failed(
        `approval of its own hash: ${own}; then ${after.state} after ${after.attempts} attempt(s)`,
        Remedy.runtime,
        evidence,
      );
    }
    return passed('refused for another hash with nothing changed; its own hash approved and run once', evidence);
  },
};

/** One round: an approval and a cancel sent together; the stack's worker then settles one outcome. */
async function raceRound(probe: StackProbe, job: JobDefinition<unknown>, payload: unknown, round: number) {
  const waiting = await waitingJob(probe, job, `race${round}`, payload);
  if ('status' in waiting) return waiting;
  const { identity } = waiting;
  const [approved, cancelled] = await Promise.allSettled([
    approveAsCheck(probe, identity, payloadHash(payload)),
    cancelItem(probe.stack.admin, identity, CHECK_OPERATOR),
  ]);
  const row = await finished(probe, identity);
  if (!row) return notEvaluated(`round ${round}: the stack's worker did not settle the job in time`, STACK_TOO_SLOW);
  const actions = (row.audit ?? []).map((entry) => entry.action).join(' ▶ ');
  const seen = `round ${round}: approve ${approved.status}, cancel ${cancelled.status}, audit ${actions || 'none'}, ${row.state} after ${row.attempts} attempt(s)`;
  const cancelWon = cancelled.status === 'fulfilled';
  // A cancel after the approval committed is a second, later decision: then the job may have run once before it.
  const consistent = cancelWon
    ? row.state === WorkState.cancelled && row.attempts <= (approved.status === 'fulfilled' ? 1 : 0)
    : approved.status === 'fulfilled' && row.state === WorkState.succeeded && row.attempts === 1;
  return consistent ? passed(seen) : failed(seen, Remedy.runtime);
}

/** Approve and cancel sent together, RACE_ROUNDS times: each round ends in exactly one outcome. */
const approvalRacingCancel: StackScenario = {
  id: StackScenarioId.approvalRacingCancel,
  title: 'an approval racing a cancel leaves exactly one outcome (run once, or cancelled and never run)',
  applies: hasGate,
  run: async (probe, job, [payload]) => {
    const rounds: StackOutcome[] = [];
    for (let round = 1; round <= RACE_ROUNDS; round += 1) rounds.push(await raceRound(probe, job, payload, round));
    const worst =
      rounds.find((outcome) => outcome.status === 'failed') ?? rounds.find((outcome) => outcome.status === 'skipped');
    if (worst) return worst;
    return passed(`${RACE_ROUNDS} rounds, each one outcome (${rounds.map((outcome) => outcome.detail).join('; ')})`);
  },
};

/** The approval scenarios through a running stack, in the order they run. */
const STACK_APPROVAL_SCENARIOS: readonly StackScenario[] = [
  approvalNeverRuns,
  approvalReplacedPayload,
  approvalRacingCancel,
];

export { STACK_APPROVAL_SCENARIOS };
