import type { FaultKind, FaultPlan } from '../../lib/fault-injection/plan.js';
import type { JobIdentity } from '../../lib/identity.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { serializeEnvelope } from '../../lib/messaging/envelope.js';
import { wakeEnvelope } from '../../lib/messaging/wake-envelope.js';
import { FINISHED_STATES, WorkState } from '../../lib/states.js';
import type { CheckEvidenceRecord } from '../../lib/store/index.js';
import { Remedy } from './remedies.js';
import {
  completed,
  completedMessage,
  failed,
  notEvaluated,
  OPERATION,
  passed,
  STACK_TOO_SLOW,
  type StackOutcome,
  type StackScenario,
  StackScenarioId,
} from './stack-check-support.js';
import type { StackProbe } from './stack-probe.js';

/** The tenant label of each fault scenario, and the fault the run's plan arms for it inside the stack's worker. */
const FAULT_LABELS = {
  stale: 'pause-after-claim',
  crash: 'crash-after-effect',
  lost: 'lost-completion',
  receipt: 'crash-on-receipt',
  dup: 'duplicate-delivery',
} as const satisfies Record<string, FaultKind>;

/** Copies of one record the worker handles at once in the duplicate-delivery scenario. */
const DUPLICATE_COPIES = 3;

/** How far past the longest lease the paused attempt sleeps (the takeover needs the lease expired in the table). */
const PAUSE_MARGIN_MS = 3_000;

/** A plan is honoured for at most this long (a check that died leaves nothing armed for longer). */
const PLAN_LIFETIME_MS = 2 * 60 * 60 * 1000;

/** The plan of one run: the five faults on their labels, the pause past the longest lease of the module's jobs. */
function faultPlanFor(runId: string, jobs: ReadonlyArray<JobDefinition<unknown>>, now: number): FaultPlan {
  const longestLease = Math.max(0, ...jobs.map((job) => job.leaseMs));
  return {
    v: 1,
    runId,
    expiresAt: now + PLAN_LIFETIME_MS,
    pauseMs: longestLease + PAUSE_MARGIN_MS,
    copies: DUPLICATE_COPIES,
    faults: { ...FAULT_LABELS },
  };
}

const NO_EVIDENCE =
  "the stack's worker wrote no evidence for the faulted message: is fault injection on (the construct's faultInjection prop, or `npm start -- --fault-injection`)?";

/**
 * Control 4/5's paused attempt left no evidence: fault injection is off, or its invocation ended before the attempt did
 * (a worker timeout at or below the pause, which is the longest lease + 3 s, ends the paused invocation).
 */
const NO_PAUSE_EVIDENCE = `${NO_EVIDENCE} Or its invocation ended before the paused attempt did: the pause is the longest lease + ${PAUSE_MARGIN_MS / 1000} s, so the worker's function timeout must be above about twice that (infra/README.md, "Deployment lane")`;

const summary = (record: CheckEvidenceRecord) => record.outcomes.join(', ');

/**
 * The evidence of the first delivery of the message the scenario sent: the attempt its fault was armed for. Any
 * other attempt of the operation (a wake-up from the sweeper or a retry, also received once) is not it.
 */
function firstDeliveryOf(probe: StackProbe, identity: JobIdentity, messageId: string) {
  return probe.evidenceWhen(identity, (record) => record.messageId === messageId && record.receiveCount === 1);
}

/** Control 3: one record handled DUPLICATE_COPIES times at once inside the worker: exactly one copy runs the job. */
const duplicateDelivery: StackScenario = {
  id: StackScenarioId.duplicateDelivery,
  title: `one message handled ${DUPLICATE_COPIES} times at once inside the stack's worker`,
  run: async (probe, job, [payload]) => {
    const identity = { tenantId: await probe.tenant('dup', payload), operationId: OPERATION };
    const row = await completed(probe, job, identity, payload);
    const record = await probe.evidenceWhen(identity, (found) => found.fired);
    if (!record) return notEvaluated(NO_EVIDENCE);
    const ran = record.outcomes.filter((outcome) => outcome === 'acked:succeeded').length;
    const evidence = { copies: record.outcomes.length, ran, outcomes: summary(record), attempts: row.attempts };
    if (ran !== 1 || row.attempts !== 1) {
      return failed(
        `${ran} of ${record.outcomes.length} copies ran the job (${summary(record)})`,
        Remedy.runtime,
        evidence,
      );
    }
    return passed(`one copy ran, the others did not (${summary(record)})`, evidence);
  },
};

/** Controls 4 and 5: a worker paused past its lease after claiming; a second delivery takes over; the first resumes. */
const staleResume: StackScenario = {
  id: StackScenarioId.staleResume,
  title: 'a worker paused past its lease while a second delivery takes over, then resumed',
  run: async (probe, job, [payload]) => {
    const identity = { tenantId: await probe.tenant('stale', payload), operationId: OPERATION };
    await probe.send(job, identity, payload);
    const claimed = await probe.rowWhen(identity, (row) => row.state === WorkState.claimed);
    if (!claimed) return notEvaluated("the stack's worker did not claim the job in time", STACK_TOO_SLOW);
    await probe.wait(Math.max(0, (claimed.leaseExpiresAt ?? Date.now()) - Date.now()) + 500);
    // The second delivery: the row's wake-up, outside the tenant's message group, so no queue that orders a group
    // (fauxqs does, an SQS fair queue does not) holds it behind the paused attempt's message.
    await probe.sendRaw(serializeEnvelope(wakeEnvelope(claimed)));
    const takeover = await probe.rowWhen(identity, (row) => row.fence >= 2 && FINISHED_STATES.includes(row.state));
    if (!takeover) return notEvaluated('no second delivery took over the expired claim in time', STACK_TOO_SLOW);
    const paused = await probe.evidenceWhen(identity, (record) => record.fired);
    if (!paused) return notEvaluated(NO_PAUSE_EVIDENCE);
    const takenOverAt = (takeover.ah ?? []).find((entry) => (entry.f ?? 0) >= 2)?.s;
    const late = paused.writes.filter((write) => write.afterPause && write.landed && !write.fenced);
    const evidence = {
      takeover: `${takeover.state} (fence ${takeover.fence}, attempt ${takeover.attempts})`,
      pausedAttempt: summary(paused),
      lateUnfencedWrites: late.length,
      resumedAt: paused.resumedAt ?? 0,
      takenOverAt: takenOverAt ?? 0,
    };
    if (late.length > 0) {
      const calls = [...new Set(late.map((write) => `${write.call} on ${write.table}`))].join(', ');
      const detail = `the resumed attempt's unfenced ${calls} landed after its lease had expired`;
      return failed(detail, Remedy.fenceEveryWrite, evidence);
    }
    if (takeover.state !== WorkState.succeeded || takeover.fence < 2) {
      return failed(`the takeover ended ${evidence.takeover}`, Remedy.completingSample, evidence);
    }
    if (paused.resumedAt === undefined || takenOverAt === undefined || paused.resumedAt < takenOverAt) {
      const detail =
        "the paused attempt resumed before the second delivery took over (the stack's worker was slow to take the copy)";
      return notEvaluated(detail, STACK_TOO_SLOW, evidence);
    }
    return passed(
      `the takeover ${evidence.takeover}; the resumed attempt ended ${summary(paused)}, no unfenced write of it landed`,
      evidence,
    );
  },
};

/** Control 6: the completion write lands and its response is lost; the SDK's retry must be recognised as applied. */
const lostCompletion: StackScenario = {
  id: StackScenarioId.lostCompletion,
  title: "the response to the completion write lost inside the stack's worker",
  run: async (probe, job, [payload]) => {
    const identity = { tenantId: await probe.tenant('lost', payload), operationId: OPERATION };
    const { row, messageId } = await completedMessage(probe, job, identity, payload);
    const record = await firstDeliveryOf(probe, identity, messageId);
    if (!record) return notEvaluated(NO_EVIDENCE);
    const evidence = { attempt: summary(record), state: row.state, attempts: row.attempts, fired: record.fired };
    if (!record.fired)
      return failed(
        `the job never reached its completion write (${summary(record)})`,
        Remedy.completingSample,
        evidence,
      );
    if (summary(record) !== 'acked:succeeded' || row.state !== WorkState.succeeded || row.attempts !== 1) {
      return failed(
        `the attempt ended ${summary(record)} (row ${row.state}, attempt ${row.attempts})`,
        Remedy.runtime,
        evidence,
      );
    }
    return passed('the completion was recognised as applied after its lost response', evidence);
  },
};

/** Controls 6 and 8: the attempt crashes after the effect, before completion; the redelivery recovers. */
const crashAfterEffect: StackScenario = {
  id: StackScenarioId.crashAfterEffect,
  title: "the stack's worker crashes after the effect, before completion",
  run: async (probe, job, [payload]) => {
    const identity = { tenantId: await probe.tenant('crash', payload), operationId: OPERATION };
    const messageId = await probe.send(job, identity, payload);
    const crashed = await firstDeliveryOf(probe, identity, messageId);
    if (!crashed) return notEvaluated(NO_EVIDENCE);
    if (!crashed.fired)
      return failed(`the job never reached its completion write (${summary(crashed)})`, Remedy.completingSample);
    const row = await probe.settled(identity);
    if (!row)
      return notEvaluated(
        'the redelivery did not finish the job in time (visibility timeout and lease)',
        STACK_TOO_SLOW,
      );
    const evidence = { crashedAttempt: summary(crashed), state: row.state, attempts: row.attempts };
    if (crashed.outcomes.some((outcome) => outcome.startsWith('acked'))) {
      return failed(`the crashed attempt was acknowledged (${summary(crashed)})`, Remedy.runtime, evidence);
    }
    const ended = job.target === 'D' ? WorkState.unknown : WorkState.succeeded;
    if (row.state !== ended)
      return failed(`after the crash the job ended ${row.state}, not ${ended}`, Remedy.runtime, evidence);
    return passed(`the crashed attempt was not acknowledged; the redelivery ended ${row.state}`, evidence);
  },
};

/** Control 8: the worker crashes between receipt and the work item commit; the message must not be acknowledged. */
const receiptCrash: StackScenario = {
  id: StackScenarioId.receiptCrash,
  title: "the stack's worker crashes between receipt and the work item commit",
  run: async (probe, job, [payload]) => {
    const identity = { tenantId: await probe.tenant('receipt', payload), operationId: OPERATION };
    const messageId = await probe.send(job, identity, payload);
    const crashed = await firstDeliveryOf(probe, identity, messageId);
    if (!crashed) return notEvaluated(NO_EVIDENCE);
    const rowAfterCrash = await probe.row(identity);
    const row = await probe.settled(identity);
    if (!row) return notEvaluated('the redelivery did not finish the job in time (visibility timeout)', STACK_TOO_SLOW);
    const evidence = {
      first: summary(crashed),
      rowAfterCrash: rowAfterCrash !== undefined,
      state: row.state,
      attempts: row.attempts,
    };
    if (!crashed.fired)
      return failed(`the first work-item write was never sent (${summary(crashed)})`, Remedy.runtime, evidence);
    if (crashed.outcomes.some((outcome) => outcome.startsWith('acked'))) {
      return failed('the message was acknowledged although its work item never committed', Remedy.runtime, evidence);
    }
    if (row.state !== WorkState.succeeded || row.attempts !== 1) {
      return failed(`the redelivery ended ${row.state} on attempt ${row.attempts}`, Remedy.completingSample, evidence);
    }
    return passed('not acknowledged until the work item committed; the redelivery ran once', evidence);
  },
};

/** The fault scenarios, run only when the stack holds the run's fault plan. */
const STACK_FAULT_SCENARIOS: readonly StackScenario[] = [
  duplicateDelivery,
  staleResume,
  lostCompletion,
  crashAfterEffect,
  receiptCrash,
];

/** One evidence row of a run, with the operation (`tenant/operation`) it concerns. */
type RunEvidence = CheckEvidenceRecord & { readonly operation: string };

/**
 * Every evidence row of the identities of the job type under check (the privacy, fencing and effect judgements read
 * all of them); an earlier job type's rows are its own (its provider's or unfenced writes are not this type's).
 */
async function allEvidence(probe: StackProbe): Promise<RunEvidence[]> {
  const seen = new Set<string>();
  const records: RunEvidence[] = [];
  for (const identity of probe.currentIdentities()) {
    const operation = `${identity.tenantId}/${identity.operationId}`;
    if (seen.has(operation)) continue;
    seen.add(operation);
    records.push(...(await probe.evidence(identity)).map((record) => ({ ...record, operation })));
  }
  return records;
}

export { allEvidence, FAULT_LABELS, faultPlanFor, type RunEvidence, STACK_FAULT_SCENARIOS, type StackOutcome };
