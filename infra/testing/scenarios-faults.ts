import type { ConformanceBench } from './bench.js';
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

const OPERATION = 'conformance-op';

/** A fresh tenant's identity and first-send message for the sample payload. */
async function freshOperation(bench: ConformanceBench, label: string, payload: unknown) {
  const identity = { tenantId: await bench.tenant(label, payload), operationId: OPERATION };
  return { identity, message: await bench.message(identity, payload) };
}

/** True when worker B's first provider event of the running scenario was a reconcile (or B made no effect call). */
function reconciledFirst(bench: ConformanceBench, worker: string): boolean {
  const events = bench.eventsOfRun().filter((event) => event.worker === worker);
  const firstEffect = events.findIndex((event) => event.kind === 'effect');
  const firstReconcile = events.findIndex((event) => event.kind === 'reconcile');
  return firstEffect === -1 || (firstReconcile !== -1 && firstReconcile < firstEffect);
}

/** The class-specific verdict after an ambiguous first attempt (crash or timeout) and its recovery. */
function recoveryProblems(bench: ConformanceBench, effects: number, state: string): Problem[] {
  const target = bench.job.target;
  if (target === 'D') {
    return [
      ...(state !== 'unknown'
        ? [{ text: `class D ended ${state}, not unknown`, remedy: Remedy.classDOneAttempt }]
        : []),
      ...(effects > 1
        ? [{ text: `class D called its provider ${effects} times`, remedy: Remedy.classDOneAttempt }]
        : []),
    ];
  }
  if (target === 'C') {
    const calls = bench.eventsOfRun().filter((event) => event.kind === 'effect' && event.reached).length;
    return [
      ...(!reconciledFirst(bench, 'B')
        ? [{ text: 'the retry called the provider before reconcile', remedy: Remedy.reconcileFirst }]
        : []),
      ...(effects > 1
        ? [
            {
              text: `the provider made ${effects} effects (${calls} effect calls, counted by distinct idempotency key): the retry repeated the effect`,
              remedy: Remedy.idempotencyKey,
            },
          ]
        : []),
    ];
  }
  return effects > 1
    ? [{ text: `the retry repeated the effect (${effects} state changes)`, remedy: Remedy.sameEffectOnRetry }]
    : [];
}

/** Seed scenario 3: the response to the completion write is lost. */
const lostCompletion: Scenario = {
  id: ScenarioId.lostCompletion,
  title: 'the response to the completion write lost',
  run: async (bench, [payload]) => {
    const { identity, message } = await freshOperation(bench, 'lost', payload);
    const meter = await EffectMeter.start(bench);
    const worker = await bench.worker('A');
    worker.faults.dropCompletionResponse = true;
    const attempt = await worker.deliver(message);
    await meter.checkpoint();
    const replay = await (await bench.worker('B')).deliver(message);
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
    const problems: Problem[] =
      evidence.droppedResponses === 0
        ? [
            {
              text: `the job never reached its completion write (${evidence.attempt})`,
              remedy: Remedy.completingSample,
            },
          ]
        : [
            ...(evidence.attempt !== 'succeeded'
              ? [{ text: `the attempt ended ${evidence.attempt}, not recognised as applied`, remedy: Remedy.runtime }]
              : []),
            ...(evidence.redelivery !== 'skipped:replay_finished'
              ? [{ text: `a redelivery ended ${evidence.redelivery}`, remedy: Remedy.runtime }]
              : []),
            ...(evidence.effects > 1 ? [{ text: `${evidence.effects} effects`, remedy: Remedy.runtime }] : []),
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
    const meter = await EffectMeter.start(bench);
    const worker = await bench.worker('A');
    if (viaProvider(bench)) worker.providerFaults.crashAfterEffect = true;
    else worker.faults.crashBeforeCompletion = true;
    const crashed = await worker.deliver(message);
    await meter.checkpoint();
    if (lacksTransactions([crashed])) return skipped(NO_TRANSACTIONS);
    if (!worker.faults.crashed) {
      const where = viaProvider(bench) ? "a call to its declared provider's effect methods" : 'its completion write';
      const remedy = viaProvider(bench) ? Remedy.declareEffects : Remedy.completingSample;
      return judged([{ text: `the job never reached ${where} (${describe(crashed)})`, remedy }], '', {
        attempt: describe(crashed),
      });
    }
    bench.expireLease();
    const recovery = await (await bench.worker('B')).deliver(message);
    await meter.checkpoint();
    await bench.sweep();
    const state = String((await bench.row(identity))?.state);
    const effects = meter.count();
    const evidence = { crashedAttempt: describe(crashed), recovery: describe(recovery), state, effects };
    const problems: Problem[] = [
      ...(crashed.acked ? [{ text: 'the crashed attempt was acknowledged', remedy: Remedy.runtime }] : []),
      ...recoveryProblems(bench, effects, state),
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
    const meter = await EffectMeter.start(bench);
    const worker = await bench.worker('A');
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
    const problems: Problem[] = [
      ...(first.acked
        ? [{ text: 'the message was acknowledged although its work item never committed', remedy: Remedy.runtime }]
        : []),
      ...(evidence.redelivery !== 'succeeded'
        ? [{ text: `the redelivery ended ${evidence.redelivery}`, remedy: Remedy.completingSample }]
        : []),
      ...(evidence.effects !== 1
        ? [
            {
              text: `${evidence.effects} effect(s) after the redelivery`,
              remedy: viaProvider(bench) ? Remedy.declareEffects : Remedy.completingSample,
            },
          ]
        : []),
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
    const worker = await bench.worker('A');
    worker.providerFaults.timeoutAfterEffect = true;
    const first = await worker.deliver(message);
    if (worker.providerFaults.timeoutAfterEffect) {
      const text = `the job never called its declared provider's effect methods (${describe(first)})`;
      return judged([{ text, remedy: Remedy.declareEffects }], '', {});
    }
    bench.expireLease();
    const recovery = await (await bench.worker('B')).deliver(message);
    await bench.sweep();
    const state = String((await bench.row(identity))?.state);
    const effects = bench.effects();
    const evidence = { attempt: describe(first), recovery: describe(recovery), state, effects };
    return judged(
      recoveryProblems(bench, effects, state),
      `after the timeout: ${evidence.attempt}, then ${evidence.recovery}; ended ${state}, ${effects} effect`,
      evidence,
    );
  },
};

export { crashAfterEffect, freshOperation, lostCompletion, providerTimeout, receiptCrash };
