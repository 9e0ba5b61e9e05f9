import type { JobDefinition, TargetClass } from '../../lib/job-definition.js';
import { FINDING_TEXT, type ReconcileFinding, samplesLabel, type UnfencedWrite, unfencedPaths } from './findings.js';
import { Remedy, unfencedRemedy } from './remedies.js';
import { ScenarioId, type ScenarioResult } from './scenario-support.js';

/** One go/no-go control for one job type, derived from what the scenarios did (never a constant). */
interface ControlResult {
  readonly id: number;
  readonly control: string;
  readonly status: 'PASS' | 'FAIL' | 'NOT EVALUATED';
  /** What was seen: for a FAIL, the scenario (and sample), the request or call, and what went wrong. */
  readonly evidence: string;
  /** What to change (FAIL) or what would let it run (NOT EVALUATED), in one line; absent on PASS. */
  readonly remedy?: string;
  /** The scenarios it was judged on. */
  readonly scenarios: readonly ScenarioId[];
}

/** What the controls are derived from. */
interface ControlEvidence {
  readonly job: JobDefinition<unknown>;
  readonly scenarios: readonly ScenarioResult[];
  readonly unfencedWrites: readonly UnfencedWrite[];
  readonly reconcileFindings: readonly ReconcileFinding[];
  /** Provider effect calls over all scenarios (class C/D), and the effects they made (C: distinct keys). */
  readonly effectCalls: number;
  readonly effects: number;
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

/** How class C and D effects are counted, as the report says it. */
const EFFECT_COUNTING: Record<'C' | 'D', string> = {
  C: 'effects counted by distinct idempotency key per operation (the dedupe the provider promises; a call without ctx.idempotencyKey counts alone)',
  D: 'effects counted per call (no key, no dedupe)',
};

type Judgement = Pick<ControlResult, 'status' | 'evidence' | 'scenarios'> & { remedy?: string };

/** `id (samples): detail` per distinct outcome, joined. */
function quote(list: readonly ScenarioResult[], all: readonly ScenarioResult[]): string {
  const single = all.every((result) => result.sample === 1);
  const groups = new Map<string, { id: string; detail: string; samples: number[] }>();
  for (const result of list) {
    const id = `${result.id}\u0000${result.detail}`;
    const group = groups.get(id) ?? { id: result.id, detail: result.detail, samples: [] };
    group.samples.push(result.sample);
    groups.set(id, group);
  }
  return [...groups.values()]
    .map((group) => `${group.id}${samplesLabel(group.samples, single)}: ${group.detail}`)
    .join('; ');
}

/** The distinct remedies of some results (or problems), in one line. */
function remedyOf(lists: ReadonlyArray<readonly string[]>): string | undefined {
  const remedies = [...new Set(lists.flat())];
  return remedies.length > 0 ? remedies.join('; ') : undefined;
}

/** FAIL when a scenario failed, NOT EVALUATED when one was skipped, else PASS; the evidence quotes them. */
function fromScenarios(evidence: ControlEvidence, ids: readonly ScenarioId[]): Judgement {
  const results = evidence.scenarios.filter((scenario) => ids.includes(scenario.id));
  const failed = results.filter((result) => result.status === 'failed');
  const withRemedy = (judgement: Judgement, from: readonly ScenarioResult[]): Judgement => {
    const remedy = remedyOf(from.map((result) => result.remedies));
    return remedy ? { ...judgement, remedy } : judgement;
  };
  if (failed.length > 0) {
    return withRemedy({ status: 'FAIL', evidence: quote(failed, evidence.scenarios), scenarios: ids }, failed);
  }
  const skipped = results.filter((result) => result.status === 'skipped');
  if (skipped.length > 0 || results.length === 0) {
    const quoted = quote(skipped, evidence.scenarios) || 'no scenario ran';
    return withRemedy({ status: 'NOT EVALUATED', evidence: quoted, scenarios: ids }, skipped);
  }
  return { status: 'PASS', evidence: quote(results, evidence.scenarios), scenarios: ids };
}

function fail(evidence: string, remedy: string, scenarios: readonly ScenarioId[] = []): Judgement {
  return { status: 'FAIL', evidence, remedy, scenarios };
}

/**
 * Control 4: no request took an unfenced path on any attempt, the stale attempt was refused, and (a job that asks
 * for successors) a stale or crashed holder's successors were never written beside the winner's.
 */
function fencedEverywhere(evidence: ControlEvidence): Judgement {
  const ids = [
    ScenarioId.staleResume,
    ScenarioId.everyAttempt,
    ScenarioId.successorStale,
    ScenarioId.successorTakeover,
  ];
  if (evidence.unfencedWrites.length > 0) {
    const single = evidence.scenarios.every((result) => result.sample === 1);
    const remedies = evidence.unfencedWrites.map((write) =>
      unfencedRemedy(evidence.job.target, write.table, write.source, write.call),
    );
    return fail(
      `unfenced path: ${unfencedPaths(evidence.unfencedWrites, single).join('; ')}: no writer_epoch condition and no fenced transaction`,
      remedyOf([remedies]) ?? Remedy.fenceEveryWrite,
      ids,
    );
  }
  return fromScenarios(evidence, ids);
}

/** Control 5: what the target class promises, checked against what happened. */
function targetEnforces(evidence: ControlEvidence): Judgement {
  const { job } = evidence;
  const target = job.target as TargetClass | undefined;
  if (!target || !(target in CLASS_CLAIMS)) {
    return fail('no target class (A, B, C or D) is declared', "declare target: 'A' | 'B' | 'C' | 'D' in defineJob");
  }
  if (target === 'A' || target === 'B') {
    const judged = fromScenarios(evidence, [ScenarioId.sharedRecord, ScenarioId.staleResume]);
    return { ...judged, evidence: `class ${target} (${CLASS_CLAIMS[target]}): ${judged.evidence}` };
  }
  const broken = classCDRuleBroken(job, target);
  if (broken) return broken;
  if (evidence.effectCalls === 0 && evidence.scenarios.some((scenario) => scenario.status !== 'skipped')) {
    return fail(
      `no call to the declared provider's effect methods (${job.provider?.effects.join(', ')}) was observed`,
      Remedy.declareEffects,
    );
  }
  const window = job.provider?.keyRetentionMs;
  const judged = fromScenarios(evidence, [ScenarioId.staleResume, ScenarioId.crashAfterEffect]);
  const counted = `${EFFECT_COUNTING[target]}: ${evidence.effectCalls} effect call(s) made ${evidence.effects} effect(s) over all scenarios`;
  const kept = window !== undefined ? `; provider keeps keys ${formatWindow(window)}` : '';
  return { ...judged, evidence: `class ${target} (${CLASS_CLAIMS[target]})${kept}; ${counted}; ${judged.evidence}` };
}

/**
 * What a class C or D definition must declare before its effects can be judged at all (one home for the in-process
 * check and `check --stack`): a provider client; class C a reconcile() and the provider's key retention window;
 * class D exactly one attempt. The broken rule as a FAIL, or undefined when all hold.
 */
function classCDRuleBroken(job: JobDefinition<unknown>, target: 'C' | 'D'): Judgement | undefined {
  if (!job.provider) {
    return fail(
      `class ${target} declares no provider client: its external effects cannot be observed or counted`,
      Remedy.declareProvider,
    );
  }
  if (target === 'C' && typeof job.reconcile !== 'function') {
    return fail(
      'class C defines no reconcile(): a retry cannot look the first call up before calling again',
      Remedy.reconcileFirst,
    );
  }
  const window = job.provider.keyRetentionMs;
  if (target === 'C' && window === undefined) {
    return fail(
      'class C provider declares no key retention window: a lookup after the provider forgot the key answers not_done, so a retry past it can repeat the effect',
      Remedy.keyRetention,
    );
  }
  if (target === 'D' && job.maxAttempts !== 1) {
    return fail(
      `class D allows exactly one attempt, this definition allows ${String(job.maxAttempts)}: with no key and no lookup, a second attempt can repeat the effect`,
      Remedy.classDOneAttempt,
    );
  }
  return undefined;
}

/** A key retention window as an operator reads it: `24h`, `90m`, `45s`, `1500ms`. */
function formatWindow(ms: number): string {
  const units: ReadonlyArray<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ];
  const unit = units.find(([, size]) => ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}

/** Control 6: ambiguous outcomes reconciled or parked, and every reconcile answer matched what the provider held. */
function reconciledTruthfully(evidence: ControlEvidence): Judgement {
  const ids = [ScenarioId.lostCompletion, ScenarioId.crashAfterEffect, ScenarioId.providerTimeout];
  const judged = fromScenarios(evidence, ids);
  if (evidence.reconcileFindings.length === 0) return judged;
  const single = evidence.scenarios.every((result) => result.sample === 1);
  const methods = evidence.job.provider?.effects.join('/') ?? 'effect';
  const kinds = [...new Set(evidence.reconcileFindings.map((finding) => finding.kind))];
  const findings = kinds.map((kind) => {
    const seen = evidence.reconcileFindings.filter((finding) => finding.kind === kind);
    const attempts = [...new Set(seen.map((finding) => `${finding.scenario} attempt ${finding.attempt}`))];
    return `${FINDING_TEXT[kind](methods)} (${attempts.join(', ')}${samplesLabel(
      [...new Set(seen.map((f) => f.sample))].sort((a, b) => a - b),
      single,
    )})`;
  });
  const also = judged.status === 'FAIL' ? [judged.evidence] : [];
  const remedy = remedyOf([
    [Remedy.reconcileLooksUp],
    judged.status === 'FAIL' && judged.remedy ? [judged.remedy] : [],
  ]);
  return fail([...findings, ...also].join('; '), remedy ?? Remedy.reconcileLooksUp, ids);
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
  if (missing.length > 0) return fail(`missing: ${missing.join(', ')}`, Remedy.ownerAndBounds);
  const conflicts = evidence.scenarios.filter((scenario) => scenario.id === ScenarioId.changedPayload);
  const named = `owner ${job.owner}, alerts to ${job.alertRoute}, maxAttempts ${job.maxAttempts}`;
  if (conflicts.length === 0 || conflicts.some((conflict) => conflict.status === 'skipped')) {
    return { status: 'NOT EVALUATED', evidence: `${named}; quarantine not exercised`, scenarios: [] };
  }
  const notQuarantined = conflicts.find((conflict) => conflict.evidence.conflict !== 'quarantined:payload_conflict');
  if (notQuarantined) {
    return fail(`${named}; a conflicting message ended ${String(notQuarantined.evidence.conflict)}`, Remedy.runtime, [
      ScenarioId.changedPayload,
    ]);
  }
  return {
    status: 'PASS',
    evidence: `${named}; a conflicting message was quarantined`,
    scenarios: [ScenarioId.changedPayload],
  };
}

/** Control 8: a crash before the work item commits, or before completion, leaves the message unacknowledged. */
function acknowledgedAfterCommit(evidence: ControlEvidence): Judgement {
  const judged = fromScenarios(evidence, [ScenarioId.receiptCrash]);
  const crashes = evidence.scenarios.filter(
    (scenario) => scenario.id === ScenarioId.crashAfterEffect && scenario.evidence.crashedAttempt !== undefined,
  );
  if (crashes.length === 0 || judged.status === 'FAIL') return judged;
  const acked = crashes.find((crash) => crash.evidence.crashedAttempt !== 'not acked');
  if (acked) {
    return fail(
      `crash-after-effect: the crashed attempt was ${String(acked.evidence.crashedAttempt)}`,
      Remedy.runtime,
      [ScenarioId.crashAfterEffect],
    );
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
  if (evidence.privacyLeaks.length > 0) return fail(evidence.privacyLeaks.join('; '), Remedy.privacy);
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
    // A schedule's occurrence identity (name + tick) is the durable identity of each of its jobs.
    fromScenarios(evidence, [ScenarioId.collidingIds, ScenarioId.duplicateTick]),
    fromScenarios(evidence, [ScenarioId.changedPayload]),
    fromScenarios(evidence, [ScenarioId.duplicateDelivery]),
    fencedEverywhere(evidence),
    targetEnforces(evidence),
    reconciledTruthfully(evidence),
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
  classCDRuleBroken,
  deriveControls,
  EFFECT_COUNTING,
  verdictOf,
};
