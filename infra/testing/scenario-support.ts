import type { JobDefinition } from '../../lib/job-definition.js';
import type { ExecutionResult } from '../../lib/worker/execute-job.js';
import type { ConformanceBench, Delivery } from './bench.js';
import type { Problem } from './remedies.js';
import type { ObservedRequest } from './request-log.js';
import { type Fingerprint, TargetState } from './target-state.js';

/** The fault-injection scenarios, each judged by counts. */
const ScenarioId = {
  staleResume: 'stale-resume',
  duplicateDelivery: 'duplicate-delivery',
  lostCompletion: 'lost-completion',
  crashAfterEffect: 'crash-after-effect',
  changedPayload: 'changed-payload',
  collidingIds: 'colliding-ids',
  sharedRecord: 'shared-record',
  receiptCrash: 'receipt-crash',
  providerTimeout: 'provider-timeout',
  everyAttempt: 'every-attempt',
  approvalNeverRuns: 'approval-never-runs',
  approvalRacingCancel: 'approval-racing-cancel',
  approvalReplacedPayload: 'approval-replaced-payload',
  successorStale: 'successor-stale',
  successorTakeover: 'successor-takeover',
  duplicateTick: 'duplicate-tick',
  limitWait: 'limit-wait',
} as const;
type ScenarioId = (typeof ScenarioId)[keyof typeof ScenarioId];

/** How one scenario went for one job type and one sample payload, and the counts it was judged on. */
interface ScenarioResult {
  readonly id: ScenarioId;
  readonly title: string;
  /** Which sample payload drove it (1-based, in the order given). */
  readonly sample: number;
  readonly status: 'passed' | 'failed' | 'skipped';
  /** One sentence: what was seen (passed), what went wrong (failed) or why it could not run (skipped). */
  readonly detail: string;
  /** One line each: what to change (failed), or what would let it run (skipped). */
  readonly remedies: readonly string[];
  readonly evidence: Readonly<Record<string, number | string | boolean>>;
}

/** What a scenario's run returns; the runner adds id, title and sample. */
type ScenarioOutcome = Omit<ScenarioResult, 'id' | 'title' | 'sample'>;

/** A scenario: its id, its title and how to run it on a bench. */
interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** Only for these target classes (all when absent). */
  readonly classes?: readonly string[];
  /** Only for job types this is true of (all when absent), e.g. those with an approval gate. */
  readonly applies?: (job: JobDefinition<unknown>) => boolean;
  /** Set when the run decides whether it applies (it may have no result): why it has none, for a test runner. */
  readonly absentWhen?: string;
  /**
   * `payloads[0]` is the sample under test; the others are there for the changed payload. Undefined: the run
   * showed the scenario does not apply to this job (e.g. it asked for no successor), so it has no result.
   */
  run(bench: ConformanceBench, payloads: readonly unknown[]): Promise<ScenarioOutcome | undefined>;
}

/** The reason class A scenarios cannot run on dynalite. */
const NO_TRANSACTIONS = 'not evaluated: engine lacks TransactWriteItems';

/**
 * Counts a scenario's effects. Class C/D: the provider's effects (C by distinct idempotency key). Class A/B:
 * checkpoints (one per sequential phase) after which the business state of the job's target tables changed.
 */
class EffectMeter {
  private changes = 0;
  private readonly changed: string[] = [];

  private constructor(
    private readonly bench: ConformanceBench,
    private last: Fingerprint,
  ) {}

  static async start(bench: ConformanceBench): Promise<EffectMeter> {
    return new EffectMeter(bench, await bench.targets.fingerprint());
  }

  /** Marks the end of a phase; returns true when that phase changed target state. */
  async checkpoint(): Promise<boolean> {
    const next = await this.bench.targets.fingerprint();
    const changed = TargetState.changes(this.last, next);
    this.last = next;
    if (changed.length === 0) return false;
    this.changes += 1;
    this.changed.push(...changed);
    return true;
  }

  /** The effect count by the job's class. */
  count(): number {
    return viaProvider(this.bench) ? this.bench.effects() : this.changes;
  }

  /** Records whose state changed, for the evidence. */
  records(): string[] {
    return [...new Set(this.changed)];
  }
}

/** Class C and D effects are counted at their declared provider client. */
function viaProvider(bench: ConformanceBench): boolean {
  return bench.job.target === 'C' || bench.job.target === 'D';
}

/** The execution result of an acknowledged, executed delivery. */
function executed(delivery: Delivery): ExecutionResult | undefined {
  return delivery.acked && delivery.result.status === 'executed' ? delivery.result.result : undefined;
}

/** A short description of a delivery for evidence: `succeeded`, `skipped:leased`, `not acked`, … */
function describe(delivery: Delivery): string {
  if (!delivery.acked) return 'not acked';
  const result = delivery.result;
  if (result.status === 'executed') {
    const state = result.result.state;
    return 'errorCode' in result.result ? `${state}:${result.result.errorCode}` : state;
  }
  return `${result.status}:${result.reason}`;
}

/** True when a delivery ran into the engine's missing TransactWriteItems. */
function lacksTransactions(deliveries: readonly Delivery[]): boolean {
  return deliveries.some((delivery) => describe(delivery) === 'failed_terminal:engine_capability_missing');
}

/** `PutItem on orders`: a request named for evidence. */
function requestName(request: ObservedRequest): string {
  const tables = request.writes.length > 0 ? request.writes.map((write) => write.table) : request.tables;
  return `${request.operation} on ${[...new Set(tables)].join(', ') || '(no table)'}`;
}

/** Target writes a worker sent in the running scenario from request `fromSeq` on: those that landed and were refused. */
function targetWrites(bench: ConformanceBench, worker: string, fromSeq = 0) {
  const sent = bench
    .requestsOfRun()
    .filter((request) => request.worker === worker && request.seq >= fromSeq && request.writes.length > 0);
  return {
    landed: sent.filter((request) => request.outcome?.landed === true),
    refused: sent.filter((request) => request.outcome?.landed === false),
  };
}

/** A failed or passed outcome from a list of problems. */
function judged(
  problems: readonly Problem[],
  passed: string,
  evidence: Record<string, number | string | boolean>,
): ScenarioOutcome {
  return problems.length === 0
    ? { status: 'passed', detail: passed, remedies: [], evidence }
    : {
        status: 'failed',
        detail: problems.map((problem) => problem.text).join('; '),
        remedies: [...new Set(problems.map((problem) => problem.remedy))],
        evidence,
      };
}

/** Not evaluated: `detail` says what could not be reached or run, `remedy` what would let it run. */
function skipped(detail: string, remedy?: string, evidence: ScenarioResult['evidence'] = {}): ScenarioOutcome {
  return { status: 'skipped', detail, remedies: remedy ? [remedy] : [], evidence };
}

export {
  describe,
  EffectMeter,
  executed,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  requestName,
  type Scenario,
  ScenarioId,
  type ScenarioOutcome,
  type ScenarioResult,
  skipped,
  targetWrites,
  viaProvider,
};
