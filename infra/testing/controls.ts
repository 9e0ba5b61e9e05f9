import type { JobDefinition, TargetClass } from '../../lib/job-definition.js';
import { ScenarioId, type ScenarioResult } from './scenario-support.js';

/** One go/no-go control for one job type, derived from what the scenarios did (never a constant). */
interface ControlResult {
  readonly id: number;
  readonly control: string;
  readonly status: 'PASS' | 'FAIL' | 'NOT EVALUATED';
  readonly evidence: string;
  /** The scenarios it was judged on. */
  readonly scenarios: readonly ScenarioId[];
}

/** A write to a table other than the work table with no fence in its condition and no fenced transaction. */
interface UnfencedWrite {
  readonly table: string;
  readonly call: string;
  readonly scenario: string;
  readonly count: number;
}

/** What the controls are derived from. */
interface ControlEvidence {
  readonly job: JobDefinition<unknown>;
  readonly scenarios: readonly ScenarioResult[];
  readonly unfencedWrites: readonly UnfencedWrite[];
  /** Provider effect calls over all scenarios (class C/D). */
  readonly effectCalls: number;
  /** Where payload bodies or raw identifiers were found (work rows, logs); empty when clean. */
  readonly privacyLeaks: readonly string[];
  readonly rowsScanned: number;
  readonly logEventsScanned: number;
}

/** The honest claim of each target class (README, "What is guaranteed"). */
const CLASS_CLAIMS: Record<TargetClass, string> = {
  A: 'shared DynamoDB record, fenced transaction: a superseded worker commits nothing; each step lands once',
  B: 'record owned by the operation, writer_epoch: an older claim never overwrites a newer one',
  C: 'external API with idempotency key + lookup: deduplication as the provider defines it, not fencing',
  D: 'external system without key or lookup: at most one attempt; ambiguous results park as unknown',
};

type Judgement = Pick<ControlResult, 'status' | 'evidence' | 'scenarios'>;

/** FAIL when a scenario failed, NOT EVALUATED when one was skipped, else PASS; the evidence quotes them. */
function fromScenarios(evidence: ControlEvidence, ids: readonly ScenarioId[]): Judgement {
  const results = evidence.scenarios.filter((scenario) => ids.includes(scenario.id));
  const quote = (list: readonly ScenarioResult[]) => list.map((result) => `${result.id}: ${result.detail}`).join('; ');
  const failed = results.filter((result) => result.status === 'failed');
  if (failed.length > 0) return { status: 'FAIL', evidence: quote(failed), scenarios: ids };
  const skipped = results.filter((result) => result.status === 'skipped');
  if (skipped.length > 0 || results.length === 0) {
    return { status: 'NOT EVALUATED', evidence: quote(skipped) || 'no scenario ran', scenarios: ids };
  }
  return { status: 'PASS', evidence: quote(results), scenarios: ids };
}

function fail(evidence: string, scenarios: readonly ScenarioId[] = []): Judgement {
  return { status: 'FAIL', evidence, scenarios };
}

/** Control 4: the stale attempt was refused, and no request took an unfenced path. */
function fencedEverywhere(evidence: ControlEvidence): Judgement {
  if (evidence.unfencedWrites.length > 0) {
    const paths = evidence.unfencedWrites.map(
      (write) => `${write.call} on ${write.table} (${write.count}× in ${write.scenario})`,
    );
    return fail(`unfenced path: ${paths.join(', ')}: no writer_epoch condition and no fenced transaction`, [
      ScenarioId.staleResume,
    ]);
  }
  return fromScenarios(evidence, [ScenarioId.staleResume]);
}

/** Control 5: what the target class promises, checked against what happened. */
function targetEnforces(evidence: ControlEvidence): Judgement {
  const { job } = evidence;
  const target = job.target as TargetClass | undefined;
  if (!target || !(target in CLASS_CLAIMS)) return fail('no target class (A, B, C or D) is declared');
  if (target === 'A' || target === 'B') {
    const judged = fromScenarios(evidence, [ScenarioId.sharedRecord, ScenarioId.staleResume]);
    return { ...judged, evidence: `class ${target} (${CLASS_CLAIMS[target]}): ${judged.evidence}` };
  }
  if (!job.provider) {
    return fail(`class ${target} declares no provider client: its external effects cannot be observed or counted`);
  }
  if (target === 'C' && typeof job.reconcile !== 'function') {
    return fail('class C defines no reconcile(): a retry cannot look the first call up before calling again');
  }
  if (target === 'D' && job.maxAttempts !== 1) {
    return fail(
      `class D allows exactly one attempt, this definition allows ${String(job.maxAttempts)}: with no key and no lookup, a second attempt can repeat the effect`,
    );
  }
  if (evidence.effectCalls === 0 && evidence.scenarios.some((scenario) => scenario.status !== 'skipped')) {
    return fail(`no call to the declared provider's effect methods (${job.provider.effects.join(', ')}) was observed`);
  }
  const judged = fromScenarios(evidence, [ScenarioId.staleResume, ScenarioId.crashAfterEffect]);
  return { ...judged, evidence: `class ${target} (${CLASS_CLAIMS[target]}): ${judged.evidence}` };
}

/** Control 7: bounded attempts, quarantine seen working, and a named owner and alert route. */
function ownedAndBounded(evidence: ControlEvidence): Judgement {
  const { job } = evidence;
  const missing = [
    ...(job.owner ? [] : ['owner']),
    ...(job.alertRoute ? [] : ['alertRoute']),
    ...(Number.isInteger(job.maxAttempts) && job.maxAttempts >= 1 && job.maxAttempts <= 100
      ? []
      : [`bounded maxAttempts (got ${String(job.maxAttempts)})`]),
  ];
  if (missing.length > 0) return fail(`missing: ${missing.join(', ')}`);
  const conflict = evidence.scenarios.find((scenario) => scenario.id === ScenarioId.changedPayload);
  const named = `owner ${job.owner}, alerts to ${job.alertRoute}, maxAttempts ${job.maxAttempts}`;
  if (!conflict || conflict.status === 'skipped') {
    return { status: 'NOT EVALUATED', evidence: `${named}; quarantine not exercised`, scenarios: [] };
  }
  const quarantined = conflict.evidence.conflict === 'quarantined:payload_conflict';
  return {
    status: quarantined ? 'PASS' : 'FAIL',
    evidence: `${named}; a conflicting message ${quarantined ? 'was quarantined' : `ended ${String(conflict.evidence.conflict)}`}`,
    scenarios: [ScenarioId.changedPayload],
  };
}

/** Control 8: a crash before the work item commits, or before completion, leaves the message unacknowledged. */
function acknowledgedAfterCommit(evidence: ControlEvidence): Judgement {
  const judged = fromScenarios(evidence, [ScenarioId.receiptCrash]);
  const crash = evidence.scenarios.find((scenario) => scenario.id === ScenarioId.crashAfterEffect);
  const crashedAttempt = crash?.evidence.crashedAttempt;
  if (crashedAttempt === undefined || judged.status === 'FAIL') return judged;
  if (crashedAttempt !== 'not acked') {
    return fail(`crash-after-effect: the crashed attempt was ${String(crashedAttempt)}`, [ScenarioId.crashAfterEffect]);
  }
  return {
    ...judged,
    evidence: `${judged.evidence}; crash-after-effect: the crashed attempt was not acknowledged`,
    scenarios: [ScenarioId.receiptCrash, ScenarioId.crashAfterEffect],
  };
}

/** Control 9: no payload body and no raw identifier in work rows or logs. */
function minimised(evidence: ControlEvidence): Judgement {
  if (evidence.scenarios.every((scenario) => scenario.status === 'skipped')) {
    return { status: 'NOT EVALUATED', evidence: 'no scenario ran', scenarios: [] };
  }
  if (evidence.privacyLeaks.length > 0) return fail(evidence.privacyLeaks.join('; '));
  return {
    status: 'PASS',
    evidence: `${evidence.rowsScanned} work rows and ${evidence.logEventsScanned} log events hold no payload body and no raw tenant id`,
    scenarios: [],
  };
}

/** The nine controls' names, in order (ids 1–9). */
const CONTROL_NAMES = [
  'Operation identity is durable and tenant-scoped',
  'Identity is bound to an immutable payload hash; a changed payload is rejected',
  'Claim is atomic across concurrent workers',
  'Every state change is a conditional mutation on the fence',
  'The target enforces the fence, or the job is class C/D with its stated limits',
  'Ambiguous outcomes go to reconciliation or unknown, never blind retry or success',
  'Terminal failure and quarantine exist, with bounded attempts and a named owner',
  'Acknowledgment happens only after the work record commits',
  'Payloads are minimised, retained and erasable',
] as const;

/** The seed's nine all-required controls, each derived from scenario counts and the definition's own fields. */
function deriveControls(evidence: ControlEvidence): ControlResult[] {
  const judgements: Judgement[] = [
    fromScenarios(evidence, [ScenarioId.collidingIds]),
    fromScenarios(evidence, [ScenarioId.changedPayload]),
    fromScenarios(evidence, [ScenarioId.duplicateDelivery]),
    fencedEverywhere(evidence),
    targetEnforces(evidence),
    fromScenarios(evidence, [ScenarioId.lostCompletion, ScenarioId.crashAfterEffect, ScenarioId.providerTimeout]),
    ownedAndBounded(evidence),
    acknowledgedAfterCommit(evidence),
    minimised(evidence),
  ];
  return judgements.map((judgement, index) => ({ id: index + 1, control: CONTROL_NAMES[index] ?? '', ...judgement }));
}

/** GO only when every control passes (no score); NO-GO on any failure; otherwise NOT EVALUATED. */
function verdictOf(controls: readonly ControlResult[]): 'GO' | 'NO-GO' | 'NOT EVALUATED' {
  if (controls.some((control) => control.status === 'FAIL')) return 'NO-GO';
  if (controls.some((control) => control.status === 'NOT EVALUATED')) return 'NOT EVALUATED';
  return 'GO';
}

export {
  CLASS_CLAIMS,
  CONTROL_NAMES,
  type ControlEvidence,
  type ControlResult,
  deriveControls,
  type UnfencedWrite,
  verdictOf,
};
