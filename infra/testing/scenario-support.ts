import type { ExecutionResult } from '../../lib/worker/execute-job.js';
import type { ConformanceBench, Delivery } from './bench.js';
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
} as const;
type ScenarioId = (typeof ScenarioId)[keyof typeof ScenarioId];

/** How one scenario went for one job type, and the counts it was judged on. */
interface ScenarioResult {
  readonly id: ScenarioId;
  readonly title: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  /** One sentence: what was seen (passed), what went wrong (failed) or why it could not run (skipped). */
  readonly detail: string;
  readonly evidence: Readonly<Record<string, number | string | boolean>>;
}

/** A scenario: its id, its title and how to run it on a bench. */
interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** Only for these target classes (all when absent). */
  readonly classes?: readonly string[];
  run(bench: ConformanceBench, payloads: readonly unknown[]): Promise<Omit<ScenarioResult, 'id' | 'title'>>;
}

/** The reason class A scenarios cannot run on dynalite. */
const NO_TRANSACTIONS = 'not evaluated: engine lacks TransactWriteItems';

/**
 * Counts a scenario's effects. Class C/D: calls to the provider's effect methods. Class A/B: checkpoints
 * (one per sequential phase) after which the business state of the job's target records changed.
 */
class EffectMeter {
  private changes = 0;
  private readonly changed: string[] = [];

  private constructor(
    private readonly bench: ConformanceBench,
    private readonly scenario: string,
    private last: Fingerprint,
  ) {}

  static async start(bench: ConformanceBench, scenario: string): Promise<EffectMeter> {
    return new EffectMeter(bench, scenario, await bench.targets.fingerprint());
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
    return viaProvider(this.bench) ? this.bench.effectCalls(this.scenario) : this.changes;
  }

  /** Records whose state changed (A/B), for the evidence. */
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

/** Target writes a worker sent in a scenario from request `fromSeq` on: how many landed, how many were refused. */
function targetWrites(bench: ConformanceBench, worker: string, scenario: string, fromSeq = 0) {
  const sent = bench.recorder.requests.filter(
    (request) =>
      request.worker === worker && request.scenario === scenario && request.seq >= fromSeq && request.writes.length > 0,
  );
  return {
    landed: sent.filter((request) => request.outcome?.landed === true).length,
    refused: sent.filter((request) => request.outcome?.landed === false).length,
  };
}

/** A failed or passed outcome from a list of problems. */
function judged(
  problems: readonly string[],
  passed: string,
  evidence: Record<string, number | string | boolean>,
): Omit<ScenarioResult, 'id' | 'title'> {
  return problems.length === 0
    ? { status: 'passed', detail: passed, evidence }
    : { status: 'failed', detail: problems.join('; '), evidence };
}

function skipped(detail: string): Omit<ScenarioResult, 'id' | 'title'> {
  return { status: 'skipped', detail, evidence: {} };
}

export {
  describe,
  EffectMeter,
  executed,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  type Scenario,
  ScenarioId,
  type ScenarioResult,
  skipped,
  targetWrites,
  viaProvider,
};
