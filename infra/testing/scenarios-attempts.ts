import type { BenchWorker, ConformanceBench } from './bench.js';
import { type Problem, Remedy } from './remedies.js';
import {
  describe,
  EffectMeter,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  type Scenario,
  ScenarioId,
  skipped,
  viaProvider,
} from './scenario-support.js';
import { freshOperation } from './scenarios-faults.js';

/**
 * Ends attempt `attempt` before it completes, with the job's whole run still executed where the class allows:
 * class C/D see their provider fail before it takes effect (a retryable outage; the next attempt reconciles and
 * runs again); class A/B alternate a crash at the completion write (a takeover after the lease expires) and a
 * retryable failure after run() returned (a retry from queued). A crash at the completion write is also armed
 * behind the provider outage, for a job that swallows the outage and completes.
 */
function endBeforeCompletion(bench: ConformanceBench, worker: BenchWorker, attempt: number): string {
  if (viaProvider(bench)) {
    worker.providerFaults.failBeforeEffect = true;
    worker.faults.crashBeforeCompletion = true;
    return 'provider outage';
  }
  if (attempt % 2 === 1) {
    worker.faults.crashBeforeCompletion = true;
    return 'crash before completion';
  }
  worker.faults.failAfterRun = true;
  return 'retryable failure';
}

/** `1, 3` from [1, 3]. */
function list(numbers: readonly number[]): string {
  return numbers.join(', ');
}

/**
 * Drives one operation through every one of the job's `maxAttempts` attempts (takeovers and retryable failures),
 * so a write or effect that only a later attempt makes is observed like any other. When run() could not be
 * reached on every attempt, the scenario is not evaluated and says which attempts were not reached and why.
 */
const everyAttempt: Scenario = {
  id: ScenarioId.everyAttempt,
  title: 'driven through every attempt (takeovers and retryable failures), the last one completing',
  run: async (bench, [payload]) => {
    const { identity, message } = await freshOperation(bench, 'attempts', payload);
    const meter = await EffectMeter.start(bench);
    const max = bench.job.maxAttempts;
    const steps: string[] = [];
    for (let attempt = 1; attempt <= max; attempt += 1) {
      const worker = await bench.worker(`attempt-${attempt}`);
      const fault = attempt < max ? endBeforeCompletion(bench, worker, attempt) : 'none';
      const delivery = await worker.deliver(message);
      await meter.checkpoint();
      if (lacksTransactions([delivery])) return skipped(NO_TRANSACTIONS);
      const state = String((await bench.row(identity))?.state);
      steps.push(`attempt ${attempt} (${fault}): ${describe(delivery)}, ${state}`);
      if (attempt < max && state !== 'queued' && state !== 'claimed') break;
      bench.expireLease();
    }
    const ran = new Set(bench.runAttempts(identity));
    const missing = Array.from({ length: max }, (_, index) => index + 1).filter((attempt) => !ran.has(attempt));
    const state = String((await bench.row(identity))?.state);
    const effects = meter.count();
    const evidence = {
      maxAttempts: max,
      runOnAttempts: list([...ran].sort((a, b) => a - b)),
      state,
      effects,
      steps: steps.join('; '),
    };
    if (missing.length > 0) {
      const detail = `not evaluated: run() was not reached on attempt(s) ${list(missing)} of ${max} (${steps.join('; ')})`;
      return skipped(detail, Remedy.completingSample, evidence);
    }
    const problems: Problem[] = [
      ...(state !== 'succeeded'
        ? [
            {
              text: `after ${max} attempts the operation ended ${state} (${steps.join('; ')})`,
              remedy: Remedy.completingSample,
            },
          ]
        : []),
      ...(effects > 1
        ? [
            {
              text: `${effects} effects over ${max} attempts of one operation`,
              remedy: viaProvider(bench) ? Remedy.idempotencyKey : Remedy.sameEffectOnRetry,
            },
          ]
        : []),
    ];
    return judged(
      problems,
      `run() on attempts ${list([...ran].sort((a, b) => a - b))} of ${max}; ended ${state}; ${effects} effect`,
      evidence,
    );
  },
};

export { everyAttempt };
