import type { ConformanceBench } from './bench.js';
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

const OPERATION = 'conformance-op';

/** A fresh tenant's identity and first-send message for the first sample payload. */
async function freshOperation(bench: ConformanceBench, label: string, payload: unknown) {
  const identity = { tenantId: await bench.tenant(label, payload), operationId: OPERATION };
  return { identity, message: await bench.message(identity, payload) };
}

/** True when worker B's first provider event of the scenario was a reconcile (or B made no effect call). */
function reconciledFirst(bench: ConformanceBench, scenario: string, worker: string): boolean {
  const events = bench.providerEvents.filter((event) => event.scenario === scenario && event.worker === worker);
  const firstEffect = events.findIndex((event) => event.kind === 'effect');
  const firstReconcile = events.findIndex((event) => event.kind === 'reconcile');
  return firstEffect === -1 || (firstReconcile !== -1 && firstReconcile < firstEffect);
}

/** The class-specific verdict after an ambiguous first attempt (crash or timeout) and its recovery. */
function recoveryProblems(bench: ConformanceBench, scenario: string, effects: number, state: string): string[] {
  const target = bench.job.target;
  if (target === 'D') {
    return [
      ...(state !== 'unknown' ? [`class D ended ${state}, not unknown`] : []),
      ...(effects > 1 ? [`class D called its provider ${effects} times`] : []),
    ];
  }
  if (target === 'C') {
    return [
      ...(!reconciledFirst(bench, scenario, 'B') ? ['the retry called the provider before reconcile'] : []),
      ...(effects > 1 ? [`the provider was called ${effects} times: reconcile did not find the first effect`] : []),
    ];
  }
  return effects > 1 ? [`the retry repeated the effect (${effects} state changes)`] : [];
}

/** Seed scenario 3: the response to the completion write is lost. */
const lostCompletion: Scenario = {
  id: ScenarioId.lostCompletion,
  title: 'the response to the completion write lost',
  run: async (bench, [payload]) => {
    const { identity, message } = await freshOperation(bench, 'lost', payload);
    const meter = await EffectMeter.start(bench, ScenarioId.lostCompletion);
    const worker = bench.worker('A');
    worker.faults.dropCompletionResponse = true;
    const attempt = await worker.deliver(message);
    await meter.checkpoint();
    const replay = await bench.worker('B').deliver(message);
    await meter.checkpoint();
    if (lacksTransactions([attempt])) return skipped(NO_TRANSACTIONS);
    const row = await bench.row(identity);
    const evidence = {
      droppedResponses: worker.faults.droppedResponses,
      attempt: describe(attempt),
      redelivery: describe(replay),
      state: String(row?.state),
      effects: meter.count(),
    };
    const problems =
      evidence.droppedResponses === 0
        ? [`the job never reached its completion write (${evidence.attempt})`]
        : [
            ...(evidence.attempt !== 'succeeded'
              ? [`the attempt ended ${evidence.attempt}, not recognised as applied`]
              : []),
            ...(evidence.redelivery !== 'skipped:replay_finished' ? [`a redelivery ended ${evidence.redelivery}`] : []),
            ...(evidence.effects > 1 ? [`${evidence.effects} effects`] : []),
          ];
    return judged(problems, 'the completion was recognised as applied; a redelivery did nothing', evidence);
  },
};

/** Seed scenario 4: crash after the effect, before completion; then lease expiry, redelivery and a sweep. */
const crashAfterEffect: Scenario = {
  id: ScenarioId.crashAfterEffect,
  title: 'crash after the effect, before completion',
  run: async (bench, [payload]) => {
    const { identity, message } = await freshOperation(bench, 'crash', payload);
    const meter = await EffectMeter.start(bench, ScenarioId.crashAfterEffect);
    const worker = bench.worker('A');
    if (viaProvider(bench)) worker.providerFaults.crashAfterEffect = true;
    else worker.faults.crashBeforeCompletion = true;
    const crashed = await worker.deliver(message);
    await meter.checkpoint();
    if (lacksTransactions([crashed])) return skipped(NO_TRANSACTIONS);
    if (!worker.faults.crashed) {
      const where = viaProvider(bench) ? "a call to its declared provider's effect methods" : 'its completion write';
      return judged([`the job never reached ${where} (${describe(crashed)})`], '', { attempt: describe(crashed) });
    }
    bench.expireLease();
    const recovery = await bench.worker('B').deliver(message);
    await meter.checkpoint();
    await bench.sweep();
    const state = String((await bench.row(identity))?.state);
    const effects = meter.count();
    const evidence = { crashedAttempt: describe(crashed), recovery: describe(recovery), state, effects };
    const problems = [
      ...(crashed.acked ? ['the crashed attempt was acknowledged'] : []),
      ...recoveryProblems(bench, ScenarioId.crashAfterEffect, effects, state),
    ];
    return judged(problems, `after the crash: ${evidence.recovery}, ended ${state}, ${effects} effect`, evidence);
  },
};

/** Control 8's crash test: the worker dies before the work item commits; the message must not be acknowledged. */
const receiptCrash: Scenario = {
  id: ScenarioId.receiptCrash,
  title: 'crash between receipt and the work item commit',
  run: async (bench, [payload]) => {
    const { identity, message } = await freshOperation(bench, 'receipt', payload);
    const meter = await EffectMeter.start(bench, ScenarioId.receiptCrash);
    const worker = bench.worker('A');
    worker.faults.failFirstCreate = true;
    const first = await worker.deliver(message);
    const rowAfterCrash = await bench.row(identity);
    const redelivery = await worker.deliver(message);
    await meter.checkpoint();
    if (lacksTransactions([redelivery])) return skipped(NO_TRANSACTIONS);
    const evidence = {
      firstDelivery: describe(first),
      rowAfterCrash: rowAfterCrash !== undefined,
      redelivery: describe(redelivery),
      effects: meter.count(),
    };
    const problems = [
      ...(first.acked ? ['the message was acknowledged although its work item never committed'] : []),
      ...(evidence.redelivery !== 'succeeded' ? [`the redelivery ended ${evidence.redelivery}`] : []),
      ...(evidence.effects !== 1 ? [`${evidence.effects} effect(s) after the redelivery`] : []),
    ];
    return judged(problems, 'not acknowledged until the work item committed; the redelivery ran once', evidence);
  },
};

/** Class C/D: the provider's effect call times out after it took effect (the harness makes it time out). */
const providerTimeout: Scenario = {
  id: ScenarioId.providerTimeout,
  title: 'the provider call times out after it took effect',
  classes: ['C', 'D'],
  run: async (bench, [payload]) => {
    const { identity, message } = await freshOperation(bench, 'timeout', payload);
    const worker = bench.worker('A');
    worker.providerFaults.timeoutAfterEffect = true;
    const first = await worker.deliver(message);
    if (worker.providerFaults.timeoutAfterEffect) {
      return judged([`the job never called its declared provider's effect methods (${describe(first)})`], '', {});
    }
    bench.expireLease();
    const recovery = await bench.worker('B').deliver(message);
    await bench.sweep();
    const state = String((await bench.row(identity))?.state);
    const effects = bench.effectCalls(ScenarioId.providerTimeout);
    const evidence = { attempt: describe(first), recovery: describe(recovery), state, effects };
    return judged(
      recoveryProblems(bench, ScenarioId.providerTimeout, effects, state),
      `after the timeout: ${evidence.attempt}, then ${evidence.recovery}; ended ${state}, ${effects} effect`,
      evidence,
    );
  },
};

export { crashAfterEffect, lostCompletion, providerTimeout, receiptCrash };
