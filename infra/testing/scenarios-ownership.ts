import { canonicalJson, payloadHash } from '../../lib/hashing.js';
import type { ConformanceBench, Delivery } from './bench.js';
import { Gate, within } from './gate.js';
import {
  describe,
  EffectMeter,
  executed,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  type Scenario,
  ScenarioId,
  skipped,
  targetWrites,
} from './scenario-support.js';

const OPERATION = 'conformance-op';

/** Seed scenario 1: pause after the claim past lease expiry, takeover, resume. */
const staleResume: Scenario = {
  id: ScenarioId.staleResume,
  title: 'pause after the claim past lease expiry, takeover, resume',
  run: async (bench, [payload]) => {
    const identity = { tenantId: await bench.tenant('stale', payload), operationId: OPERATION };
    const message = await bench.message(identity, payload);
    const meter = await EffectMeter.start(bench, ScenarioId.staleResume);
    const gate = new Gate();
    const stale = bench.worker('A', { pause: gate });
    const staleDelivery = stale.deliver(message);
    const paused = await within(
      Promise.race([gate.reached.then(() => true), staleDelivery.then(() => false)]),
      'the first claim',
    );
    if (!paused) return judged([`worker A never started the job (${describe(await staleDelivery)})`], '', {});
    bench.expireLease();
    const takeover = await bench.worker('B').deliver(message);
    await meter.checkpoint();
    const resumedFrom = bench.recorder.requests.length;
    gate.release();
    const resumed = await staleDelivery;
    const staleChanged = await meter.checkpoint();
    if (lacksTransactions([takeover, resumed])) return skipped(NO_TRANSACTIONS);
    const writes = targetWrites(bench, 'A', ScenarioId.staleResume, resumedFrom);
    const effects = meter.count();
    const evidence = {
      takeover: describe(takeover),
      staleAttempt: describe(resumed),
      staleWritesLanded: writes.landed,
      staleWritesRefused: writes.refused,
      effects,
    };
    const problems = [
      ...(writes.landed > 0 ? [`the stale attempt landed ${writes.landed} write(s) after the takeover`] : []),
      ...(staleChanged ? [`the stale attempt changed ${meter.records().join(', ')}`] : []),
      ...(effects > 1 ? [`${effects} effects for one operation`] : []),
    ];
    return judged(
      problems,
      `takeover ${evidence.takeover}; the stale attempt's ${writes.refused} target write(s) were refused, ${writes.landed} landed; ${effects} effect`,
      evidence,
    );
  },
};

/** Seed scenario 2 (and the concurrency test): the same message delivered to four workers at once. */
const duplicateDelivery: Scenario = {
  id: ScenarioId.duplicateDelivery,
  title: 'the same message delivered to four workers at once',
  run: async (bench, [payload]) => {
    const identity = { tenantId: await bench.tenant('dup', payload), operationId: OPERATION };
    const message = await bench.message(identity, payload);
    const meter = await EffectMeter.start(bench, ScenarioId.duplicateDelivery);
    const workers = ['A', 'B', 'C', 'D'].map((name) => bench.worker(name));
    const deliveries = await Promise.all(workers.map((worker) => worker.deliver(message)));
    await meter.checkpoint();
    if (lacksTransactions(deliveries)) return skipped(NO_TRANSACTIONS);
    const claims = deliveries.filter((delivery) => executed(delivery) !== undefined).length;
    const effects = meter.count();
    const evidence = { deliveries: deliveries.length, claims, effects, outcomes: deliveries.map(describe).join(', ') };
    const problems = [
      ...(claims !== 1 ? [`${claims} claims from ${deliveries.length} concurrent deliveries`] : []),
      ...(effects > 1 ? [`${effects} effects for one operation`] : []),
    ];
    return judged(problems, `${claims} claim and ${effects} effect from ${deliveries.length} deliveries`, evidence);
  },
};

/** A payload whose hash differs from `payload`'s: the second sample, or the first with one extra field. */
function changedPayload(payloads: readonly unknown[]): unknown {
  const [first, second] = payloads;
  if (second !== undefined && payloadHash(second) !== payloadHash(first)) return second;
  return first !== null && typeof first === 'object' && !Array.isArray(first)
    ? { ...first, conformanceProbe: 1 }
    : [first, 'conformance-probe'];
}

/** Seed scenario 5: same identity, different payload. */
const changedPayloadScenario: Scenario = {
  id: ScenarioId.changedPayload,
  title: 'same identity, different payload',
  run: async (bench, payloads) => {
    const [payload] = payloads;
    const identity = { tenantId: await bench.tenant('conflict', payload), operationId: OPERATION };
    const worker = bench.worker('A');
    const first = await worker.deliver(await bench.message(identity, payload));
    const before = await bench.row(identity);
    const meter = await EffectMeter.start(bench, ScenarioId.changedPayload);
    const from = bench.recorder.requests.length;
    const calls = bench.providerEvents.length;
    const conflict = await worker.deliver(await bench.message(identity, changedPayload(payloads), { store: false }));
    const changed = await meter.checkpoint();
    const after = await bench.row(identity);
    if (lacksTransactions([first])) return skipped(NO_TRANSACTIONS);
    const writes = targetWrites(bench, 'A', ScenarioId.changedPayload, from);
    const evidence = {
      first: describe(first),
      conflict: describe(conflict),
      rowUnchanged: canonicalJson(before ?? null) === canonicalJson(after ?? null),
      targetWrites: writes.landed + writes.refused,
      providerCalls: bench.providerEvents.length - calls,
    };
    const problems = [
      ...(evidence.conflict !== 'quarantined:payload_conflict'
        ? [`the changed payload ended ${evidence.conflict}`]
        : []),
      ...(!evidence.rowUnchanged ? ['the work item changed'] : []),
      ...(evidence.targetWrites > 0 || changed ? [`the changed payload wrote to the job's targets`] : []),
      ...(evidence.providerCalls > 0
        ? [`the changed payload called the provider ${evidence.providerCalls} time(s)`]
        : []),
    ];
    return judged(problems, 'rejected as a payload conflict and quarantined; nothing changed', evidence);
  },
};

/** Fence rejections a job saw in a scenario because another operation fences the record. */
function foreignRejections(bench: ConformanceBench, scenario: string): string[] {
  return bench.jobErrors
    .filter((error) => error.scenario === scenario && error.rejection?.reason === 'foreign_operation')
    .map((error) => error.rejection?.tableName ?? '?');
}

/** The last refused target write of a scenario, named as `Operation on table`. */
function refusedCall(bench: ConformanceBench, scenario: string): string {
  const refused = bench.recorder.requests.filter(
    (request) => request.scenario === scenario && request.writes.length > 0 && request.outcome?.landed === false,
  );
  const last = refused.at(-1);
  return last ? `${last.operation} on ${last.writes.map((write) => write.table).join(', ')}` : 'a fenced write';
}

/** Control 1's contract test: the same operation id under two tenants is two operations. */
const collidingIds: Scenario = {
  id: ScenarioId.collidingIds,
  title: 'the same operation id under two tenants',
  run: async (bench, [payload]) => {
    const meter = await EffectMeter.start(bench, ScenarioId.collidingIds);
    const deliveries: Delivery[] = [];
    const worker = bench.worker('A');
    for (const label of ['tenant1', 'tenant2']) {
      const identity = { tenantId: await bench.tenant(label, payload), operationId: OPERATION };
      deliveries.push(await worker.deliver(await bench.message(identity, payload)));
      await meter.checkpoint();
    }
    if (lacksTransactions(deliveries)) return skipped(NO_TRANSACTIONS);
    const shared = foreignRejections(bench, ScenarioId.collidingIds);
    const effects = meter.count();
    const evidence = { outcomes: deliveries.map(describe).join(', '), effects, sharedRecords: shared.length };
    const problems = [
      ...deliveries.flatMap((delivery, index) =>
        describe(delivery) === 'succeeded' ? [] : [`tenant ${index + 1}'s operation ended ${describe(delivery)}`],
      ),
      ...(shared.length > 0
        ? [`a record of ${shared.join(', ')} is shared across tenants (${refusedCall(bench, ScenarioId.collidingIds)})`]
        : []),
      ...(effects !== 2 ? [`${effects} effect(s) for two tenants' operations`] : []),
    ];
    return judged(problems, 'two tenants, two operations, two effects', evidence);
  },
};

/** Two operations with the same business input (e.g. two publications of one statement). */
const sharedRecord: Scenario = {
  id: ScenarioId.sharedRecord,
  title: 'two operations with the same payload, one after the other',
  run: async (bench, [payload]) => {
    const tenantId = await bench.tenant('shared', payload);
    const worker = bench.worker('A');
    const deliveries: Delivery[] = [];
    for (const operationId of ['conformance-first', 'conformance-second']) {
      deliveries.push(await worker.deliver(await bench.message({ tenantId, operationId }, payload)));
    }
    if (lacksTransactions(deliveries)) return skipped(NO_TRANSACTIONS);
    const shared = foreignRejections(bench, ScenarioId.sharedRecord);
    const evidence = { outcomes: deliveries.map(describe).join(', '), foreignFenceRejections: shared.length };
    const problems = [
      ...(shared.length > 0
        ? [
            `a record of ${[...new Set(shared)].join(', ')} is shared by two operations: the second one's ${refusedCall(bench, ScenarioId.sharedRecord)} was refused by the first one's fence (class B fences one operation's records; key it by the operation or use class A)`,
          ]
        : []),
      ...(deliveries[1] && describe(deliveries[1]) !== 'succeeded'
        ? [`the second operation ended ${describe(deliveries[1])}`]
        : []),
    ];
    return judged(problems, 'both operations succeeded on their own records', evidence);
  },
};

export { changedPayloadScenario, collidingIds, duplicateDelivery, sharedRecord, staleResume };
