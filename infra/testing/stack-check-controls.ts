import { canonicalJson } from '../../lib/hashing.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { CLASS_CLAIMS, CONTROL_NAMES, classCDRuleBroken, EFFECT_COUNTING } from './controls.js';
import { Remedy } from './remedies.js';
import type { RunEvidence } from './stack-check-faults.js';
import { StackScenarioId, type StackScenarioResult } from './stack-check-support.js';
import type { StackProbe } from './stack-probe.js';

/** One go/no-go control as a stack check judged it; `claimed` when the stack check stands behind it. */
interface StackControlResult {
  readonly id: number;
  readonly control: string;
  readonly status: 'PASS' | 'FAIL' | 'NOT EVALUATED';
  readonly evidence: string;
  readonly remedy?: string;
  readonly scenarios: readonly string[];
  /** True for the controls a running stack can show (CLAIMED_CONTROLS): only these can make a stack PASS. */
  readonly claimed: boolean;
}

/** The controls a stack check exercises end to end through the stack's queue, worker and tables. */
const CLAIMED_CONTROLS = [1, 2, 7] as const;

/** What would let an unclaimed control be judged: the in-process check, which injects the faults. */
const IN_PROCESS = 'run `leasefence check` (in-process, with fault injection) for this control';

/** Why each other control cannot be observed through a running stack (never PASS: a NO-GO is still reported). */
function notObservable(job: JobDefinition<unknown>): Record<number, string> {
  const target =
    job.target === 'C' || job.target === 'D'
      ? "counting the provider's effect calls at an instrumented client inside the worker"
      : 'a worker paused past its lease and resumed after a takeover (stale-resume)';
  return {
    3: "needs concurrent claims forced at once: copies sent to the stack's queue may reach its workers one after the other, so one claim there shows a replay, not atomicity",
    4: 'needs every DynamoDB request of the worker observed at the engine boundary and a stale attempt resumed after a takeover',
    5: `needs ${target}`,
    6: 'needs a lost completion response, a crash after the effect and a provider timeout injected into the worker',
    8: 'needs a worker crashed between receiving a message and committing its work row',
    9: "needs the stack's logs, which the check does not read (CloudWatch Logs, or the local stack's output)",
  };
}

type Judgement = Pick<StackControlResult, 'status' | 'evidence' | 'scenarios'> & { remedy?: string };

function remedyOf(results: readonly StackScenarioResult[]): { remedy?: string } {
  const remedies = [...new Set(results.flatMap((result) => result.remedies))];
  return remedies.length > 0 ? { remedy: remedies.join('; ') } : {};
}

const quote = (results: readonly StackScenarioResult[]) =>
  results.map((result) => `${result.id}: ${result.detail}`).join('; ');

/** FAIL when one of the scenarios failed, NOT EVALUATED when one was skipped or none ran, else PASS. */
function fromScenarios(results: readonly StackScenarioResult[], ids: readonly string[]): Judgement {
  const mine = results.filter((result) => ids.includes(result.id));
  const failed = mine.filter((result) => result.status === 'failed');
  if (failed.length > 0) return { status: 'FAIL', evidence: quote(failed), scenarios: ids, ...remedyOf(failed) };
  const skipped = mine.filter((result) => result.status === 'skipped');
  if (skipped.length > 0 || mine.length === 0) {
    return {
      status: 'NOT EVALUATED',
      evidence: quote(skipped) || 'no scenario ran',
      scenarios: ids,
      ...remedyOf(skipped),
    };
  }
  return { status: 'PASS', evidence: quote(mine), scenarios: ids };
}

/** An unclaimed control: FAIL when a scenario that bears on it failed, else NOT EVALUATED saying why. */
function unclaimed(
  results: readonly StackScenarioResult[],
  ids: readonly string[],
  why: string,
  seen?: string,
): Judgement {
  const judged = fromScenarios(results, ids);
  if (judged.status === 'FAIL') return judged;
  const also = judged.status === 'PASS' ? `; seen through the stack: ${judged.evidence}` : '';
  return {
    status: 'NOT EVALUATED',
    evidence: `not observable through a running stack: ${why}${seen ? `; ${seen}` : ''}${also}`,
    scenarios: ids,
    remedy: IN_PROCESS,
  };
}

/** Control 7 through the stack: owner, route and bounded attempts declared; every kind of bad input quarantined. */
function ownedAndQuarantined(job: JobDefinition<unknown>, results: readonly StackScenarioResult[]): Judgement {
  const missing = [...(job.owner ? [] : ['owner']), ...(job.alertRoute ? [] : ['alertRoute'])];
  if (missing.length > 0)
    return { status: 'FAIL', evidence: `missing: ${missing.join(', ')}`, remedy: Remedy.ownerAndBounds, scenarios: [] };
  const judged = fromScenarios(results, [
    StackScenarioId.changedPayload,
    StackScenarioId.malformedMessage,
    StackScenarioId.unknownJobType,
    StackScenarioId.schemaInvalid,
  ]);
  return {
    ...judged,
    evidence: `owner ${job.owner}, alerts to ${job.alertRoute}, maxAttempts ${job.maxAttempts}; ${judged.evidence}`,
  };
}

/** Control 9's part a stack shows: the check's own work rows hold no payload body (FAIL when one does). */
async function rowsWithoutBodies(
  probe: StackProbe,
  payloads: readonly unknown[],
): Promise<{ leaks: string[]; rows: number }> {
  const bodies = payloads.map((payload) => canonicalJson(payload));
  const leaks: string[] = [];
  let rows = 0;
  for (const identity of probe.identities) {
    const row = await probe.row(identity);
    if (!row) continue;
    rows += 1;
    const text = JSON.stringify(row);
    if (bodies.some((body) => text.includes(body) || text.includes(JSON.stringify(body)))) {
      leaks.push(`work row of ${row.operationId} holds a payload body`);
    }
  }
  return { leaks: [...new Set(leaks)], rows };
}

/** True for class C and D: the declared provider's own storage is the external system, its writes are the effect. */
const providerIsExternal = (job: JobDefinition<unknown>) => job.target === 'C' || job.target === 'D';

/**
 * Every write the stack's worker saw the job send to its own tables without a fence, as one line per path. A class
 * C/D provider's writes (made inside its declared client's calls) are its effect, counted at the provider (control 5),
 * as the in-process check counts them; a class A/B job's provider writes are the job's like any other.
 */
function unfencedPaths(job: JobDefinition<unknown>, evidence: readonly RunEvidence[]): string[] {
  const paths = new Map<string, number>();
  const external = providerIsExternal(job);
  const writes = evidence.flatMap((record) => record.writes).filter((one) => !one.fenced);
  for (const write of writes.filter((one) => !(external && one.provider === true))) {
    const path = `${write.call} on ${write.table}`;
    paths.set(path, (paths.get(path) ?? 0) + 1);
  }
  return [...paths].map(([path, count]) => `${path}, ${count}×`);
}

/**
 * Class C/D's effects per operation over every attempt the stack's worker made (the evidence of all its deliveries):
 * class C one per distinct idempotency key (the provider's dedupe; a call without ctx.idempotencyKey counts alone),
 * class D one per call. Keyed by the evidence's operation.
 */
function effectsPerOperation(target: 'C' | 'D', evidence: readonly RunEvidence[]): Map<string, number> {
  const byOperation = new Map<string, { keyed: boolean; unkeyed: number }>();
  for (const record of evidence) {
    const operation = record.operation;
    const seen = byOperation.get(operation) ?? { keyed: false, unkeyed: 0 };
    for (const effect of record.effects ?? []) {
      if (target === 'C' && effect.keyed) seen.keyed = true;
      else seen.unkeyed += 1;
    }
    byOperation.set(operation, seen);
  }
  return new Map([...byOperation].map(([operation, seen]) => [operation, (seen.keyed ? 1 : 0) + seen.unkeyed]));
}

/**
 * Control 5 for class C and D through a faulted stack, as the in-process check judges it: the class's declarations
 * (classCDRuleBroken), the declared provider's effect calls observed inside the stack's worker (none at all ▶ FAIL;
 * a worker that recorded none, one older than the evidence's effects ▶ NOT EVALUATED), at most one effect per
 * operation over all its attempts, and the scenarios that resume a stale attempt and recover from a crash after the
 * effect (the recovery must reconcile, not call again) passing.
 */
function providerEffects(
  job: JobDefinition<unknown>,
  results: readonly StackScenarioResult[],
  evidence: readonly RunEvidence[],
): Judgement {
  const target = job.target === 'D' ? 'D' : 'C';
  const broken = classCDRuleBroken(job, target);
  if (broken) return broken;
  const ids = [StackScenarioId.sharedRecord, StackScenarioId.staleResume, StackScenarioId.crashAfterEffect];
  const judged = fromScenarios(results, ids);
  if (judged.status === 'FAIL') return judged;
  if (evidence.length === 0 || evidence.some((record) => record.effects === undefined)) {
    return { status: 'NOT EVALUATED', evidence: "the stack's worker recorded no provider calls", scenarios: ids };
  }
  const perOperation = effectsPerOperation(target, evidence);
  const calls = evidence.reduce((sum, record) => sum + (record.effects?.length ?? 0), 0);
  const repeated = [...perOperation].filter(([, count]) => count > 1);
  const counted = `${EFFECT_COUNTING[target]}: ${calls} effect call(s) seen inside the stack's worker`;
  if (repeated.length > 0) {
    const detail = repeated.map(([operation, count]) => `${operation}: ${count} effects`).join('; ');
    return {
      status: 'FAIL',
      evidence: `${counted}; repeated: ${detail}`,
      remedy: Remedy.reconcileFirst,
      scenarios: ids,
    };
  }
  if (calls === 0) {
    const methods = job.provider?.effects.join(', ') ?? '';
    return {
      status: 'FAIL',
      evidence: `no call to the declared provider's effect methods (${methods}) was observed`,
      remedy: Remedy.declareEffects,
      scenarios: ids,
    };
  }
  return { ...judged, evidence: `class ${target} (${CLASS_CLAIMS[target]}); ${counted}; ${judged.evidence}` };
}

/**
 * The nine controls with the stack's fault injection on: every one judged from scenarios run through the stack's
 * own worker, its faults injected there, and the evidence its fault layer wrote (the job's writes and log fields).
 */
async function deriveFaultedControls(
  job: JobDefinition<unknown>,
  results: readonly StackScenarioResult[],
  probe: StackProbe,
  payloads: readonly unknown[],
  evidence: readonly RunEvidence[],
): Promise<StackControlResult[]> {
  const privacy = await rowsWithoutBodies(probe, payloads);
  const unfenced = unfencedPaths(job, evidence);
  const leaks = [...new Set([...privacy.leaks, ...evidence.flatMap((record) => record.leaks)])];
  const events = evidence.reduce((sum, record) => sum + record.telemetryEvents, 0);
  const classCD = job.target === 'C' || job.target === 'D';
  const judgements: Judgement[] = [
    fromScenarios(results, [StackScenarioId.replay, StackScenarioId.collidingIds]),
    fromScenarios(results, [StackScenarioId.changedPayload]),
    fromScenarios(results, [StackScenarioId.duplicateDelivery]),
    unfenced.length > 0
      ? {
          status: 'FAIL',
          evidence: `unfenced path seen inside the stack's worker: ${unfenced.join('; ')}: no writer_epoch condition and no fenced transaction`,
          remedy: Remedy.fenceEveryWrite,
          scenarios: [StackScenarioId.staleResume],
        }
      : fromScenarios(results, [StackScenarioId.staleResume]),
    classCD
      ? providerEffects(job, results, evidence)
      : fromScenarios(results, [StackScenarioId.sharedRecord, StackScenarioId.staleResume]),
    fromScenarios(results, [StackScenarioId.lostCompletion, StackScenarioId.crashAfterEffect]),
    ownedAndQuarantined(job, results),
    fromScenarios(results, [StackScenarioId.receiptCrash, StackScenarioId.crashAfterEffect]),
    leaks.length > 0
      ? { status: 'FAIL', evidence: leaks.join('; '), remedy: Remedy.privacy, scenarios: [] }
      : events === 0 || privacy.rows === 0
        ? { status: 'NOT EVALUATED', evidence: 'no work row or log event of the check was seen', scenarios: [] }
        : {
            status: 'PASS',
            evidence: `${privacy.rows} work rows hold no payload body; ${events} log events of the worker hold no raw tenant id`,
            scenarios: [],
          },
  ];
  return judgements.map((judgement, index) => ({
    id: index + 1,
    control: CONTROL_NAMES[index] ?? '',
    ...judgement,
    claimed: true,
  }));
}

/**
 * The nine controls as a stack check can judge them: 1, 2 and 7 from the scenarios it ran through the stack
 * (CLAIMED_CONTROLS); every other one NOT EVALUATED with the reason it needs fault injection, or FAIL when a
 * scenario the stack did run contradicts it (a shared record, a payload body in a work row). With the stack's
 * fault injection on (`evidence` given): all nine, judged by deriveFaultedControls.
 */
async function deriveStackControls(
  job: JobDefinition<unknown>,
  results: readonly StackScenarioResult[],
  probe: StackProbe,
  payloads: readonly unknown[],
  evidence?: readonly RunEvidence[],
): Promise<StackControlResult[]> {
  if (evidence) return deriveFaultedControls(job, results, probe, payloads, evidence);
  const why = notObservable(job);
  const privacy = await rowsWithoutBodies(probe, payloads);
  const judgements: Judgement[] = [
    fromScenarios(results, [StackScenarioId.replay, StackScenarioId.collidingIds]),
    fromScenarios(results, [StackScenarioId.changedPayload]),
    unclaimed(results, [], why[3] ?? ''),
    unclaimed(results, [], why[4] ?? ''),
    unclaimed(results, [StackScenarioId.sharedRecord], why[5] ?? ''),
    unclaimed(results, [], why[6] ?? ''),
    ownedAndQuarantined(job, results),
    unclaimed(results, [], why[8] ?? ''),
    privacy.leaks.length > 0
      ? { status: 'FAIL', evidence: privacy.leaks.join('; '), remedy: Remedy.privacy, scenarios: [] }
      : unclaimed(results, [], why[9] ?? '', `${privacy.rows} work rows the check made hold no payload body`),
  ];
  return judgements.map((judgement, index) => ({
    id: index + 1,
    control: CONTROL_NAMES[index] ?? '',
    ...judgement,
    claimed: (CLAIMED_CONTROLS as readonly number[]).includes(index + 1),
  }));
}

/**
 * NO-GO on any FAIL (claimed or not) or failed approval scenario; NOT EVALUATED while a claimed control or an
 * approval scenario is open; GO only when all nine controls were claimed (the stack's fault injection ran inside
 * its worker) and passed. Without fault injection six controls stay unseen, so a stack can refute the go/no-go
 * (NO-GO) but never grant it: PASS then means "what a running stack can show was shown".
 */
function stackVerdict(
  controls: readonly StackControlResult[],
  results: readonly StackScenarioResult[],
): 'GO' | 'PASS' | 'NO-GO' | 'NOT EVALUATED' {
  const approvals = results.filter((result) => result.id.startsWith('approval-'));
  if (controls.some((control) => control.status === 'FAIL') || approvals.some((result) => result.status === 'failed'))
    return 'NO-GO';
  const claimedOpen = controls.some((control) => control.claimed && control.status !== 'PASS');
  if (claimedOpen || approvals.some((result) => result.status === 'skipped')) return 'NOT EVALUATED';
  // GO only when all nine were claimed (the stack's fault injection ran) and every one passed.
  return controls.length === CONTROL_NAMES.length && controls.every((control) => control.claimed) ? 'GO' : 'PASS';
}

export { CLAIMED_CONTROLS, deriveStackControls, type StackControlResult, stackVerdict };
