import { canonicalJson, payloadHash } from '../../lib/hashing.js';
import type { ConformanceBench, Delivery } from './bench.js';
import { Gate, within } from './gate.js';
import { type Problem, Remedy } from './remedies.js';
import {
  describe,
  EffectMeter,
  executed,
  judged,
  lacksTransactions,
  NO_TRANSACTIONS,
  requestName,
  type Scenario,
  ScenarioId,
  skipped,
  targetWrites,
  viaProvider,
} from './scenario-support.js';

const OPERATION = 'conformance-op';

/** The remedy when one operation had more than one effect: by class, what makes a repeat harmless. */
function repeatRemedy(bench: ConformanceBench): string {
  return viaProvider(bench) ? Remedy.idempotencyKey : Remedy.fenceEveryWrite;
}

/** Seed scenario 1: pause after the claim past lease expiry, takeover, resume. */
const staleResume: Scenario = {
  id: ScenarioId.staleResume,
  title: 'pause after the claim past lease expiry, takeover, resume',
  run: async (bench, [payload]) => {
    const identity = { tenantId: await bench.tenant('stale', payload), operationId: OPERATION };
    const message = await bench.message(identity, payload);
    const meter = await EffectMeter.start(bench);
    const gate = new Gate();
    const stale = await bench.worker('A', { pause: gate });
    const staleDelivery = stale.deliver(message);
    const paused = await within(
      Promise.race([gate.reached.then(() => true), staleDelivery.then(() => false)]),
      'the first claim',
    );
    if (!paused) {
      const problem = {
        text: `worker A never started the job (${describe(await staleDelivery)})`,
        remedy: Remedy.completingSample,
      };
      return judged([problem], '', {});
    }
    bench.expireLease();
    const takeover = await (await bench.worker('B')).deliver(message);
    await meter.checkpoint();
    const resumedFrom = bench.requests.length;
    gate.release();
    const resumed = await staleDelivery;
    const staleChanged = await meter.checkpoint();
    if (lacksTransactions([takeover, resumed])) return skipped(NO_TRANSACTIONS);
    const writes = targetWrites(bench, 'A', resumedFrom);
    const effects = meter.count();
    const evidence = {
      takeover: describe(takeover),
      staleAttempt: describe(resumed),
      staleWritesLanded: writes.landed.length,
      staleWritesRefused: writes.refused.length,
      effects,
    };
    const landed = [...new Set(writes.landed.map(requestName))];
    const problems: Problem[] = [
      ...(landed.length > 0
        ? [
            {
              text: `the stale attempt landed ${writes.landed.length} write(s) after the takeover (${landed.join('; ')})`,
              remedy: Remedy.fenceEveryWrite,
            },
          ]
        : []),
      ...(staleChanged
        ? [{ text: `the stale attempt changed ${meter.records().join(', ')}`, remedy: Remedy.fenceEveryWrite }]
        : []),
      ...(effects > 1 ? [{ text: `${effects} effects for one operation`, remedy: repeatRemedy(bench) }] : []),
    ];
    return judged(
      problems,
      `takeover ${evidence.takeover}; the stale attempt (${evidence.staleAttempt}) landed ${writes.landed.length} target write(s), ${writes.refused.length} refused; ${effects} effect`,
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
    const meter = await EffectMeter.start(bench);
    const workers = await Promise.all(['A', 'B', 'C', 'D'].map((name) => bench.worker(name)));
    const deliveries = await Promise.all(workers.map((worker) => worker.deliver(message)));
    await meter.checkpoint();
    if (lacksTransactions(deliveries)) return skipped(NO_TRANSACTIONS);
    const claims = deliveries.filter((delivery) => executed(delivery) !== undefined).length;
    const effects = meter.count();
    const evidence = { deliveries: deliveries.length, claims, effects, outcomes: deliveries.map(describe).join(', ') };
    const problems: Problem[] = [
      ...(claims !== 1
        ? [{ text: `${claims} claims from ${deliveries.length} concurrent deliveries`, remedy: Remedy.runtime }]
        : []),
      ...(effects > 1 ? [{ text: `${effects} effects for one operation`, remedy: repeatRemedy(bench) }] : []),
    ];
    return judged(problems, `${claims} claim and ${effects} effect from ${deliveries.length} deliveries`, evidence);
  },
};

/** A payload whose hash differs from `payload`'s: another sample, or the first with one extra field. */
function changedPayload(payloads: readonly unknown[]): unknown {
  const [first, ...others] = payloads;
  const other = others.find((candidate) => payloadHash(candidate) !== payloadHash(first));
  if (other !== undefined) return other;
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
    const worker = await bench.worker('A');
    const first = await worker.deliver(await bench.message(identity, payload));
    const before = await bench.row(identity);
    const meter = await EffectMeter.start(bench);
    const from = bench.requests.length;
    const calls = bench.providerEvents.length;
    const conflict = await worker.deliver(await bench.message(identity, changedPayload(payloads), { store: false }));
    const changed = await meter.checkpoint();
    const after = await bench.row(identity);
    if (lacksTransactions([first])) return skipped(NO_TRANSACTIONS);
    const writes = targetWrites(bench, 'A', from);
    const evidence = {
      first: describe(first),
      conflict: describe(conflict),
      rowUnchanged: canonicalJson(before ?? null) === canonicalJson(after ?? null),
      targetWrites: writes.landed.length + writes.refused.length,
      providerCalls: bench.providerEvents.length - calls,
    };
    const problems: Problem[] = [
      ...(evidence.conflict !== 'quarantined:payload_conflict'
        ? [{ text: `the changed payload ended ${evidence.conflict}`, remedy: Remedy.runtime }]
        : []),
      ...(!evidence.rowUnchanged ? [{ text: 'the work item changed', remedy: Remedy.runtime }] : []),
      ...(evidence.targetWrites > 0 || changed
        ? [{ text: "the changed payload wrote to the job's targets", remedy: Remedy.runtime }]
        : []),
      ...(evidence.providerCalls > 0
        ? [
            {
              text: `the changed payload called the provider ${evidence.providerCalls} time(s)`,
              remedy: Remedy.runtime,
            },
          ]
        : []),
    ];
    return judged(problems, 'rejected as a payload conflict and quarantined; nothing changed', evidence);
  },
};

/** Fence rejections a job saw in the running scenario because another operation fences the record. */
function foreignRejections(bench: ConformanceBench): string[] {
  return bench
    .errorsOfRun()
    .filter((error) => error.rejection?.reason === 'foreign_operation')
    .map((error) => error.rejection?.tableName ?? '?');
}

/** The last refused target write of the running scenario, named as `Operation on table`. */
function refusedCall(bench: ConformanceBench): string {
  const refused = bench
    .requestsOfRun()
    .filter((request) => request.writes.length > 0 && request.outcome?.landed === false);
  const last = refused.at(-1);
  return last ? requestName(last) : 'a fenced write';
}

/** Control 1's contract test: the same operation id under two tenants is two operations. */
const collidingIds: Scenario = {
  id: ScenarioId.collidingIds,
  title: 'the same operation id under two tenants',
  run: async (bench, [payload]) => {
    const meter = await EffectMeter.start(bench);
    const deliveries: Delivery[] = [];
    const worker = await bench.worker('A');
    for (const label of ['tenant1', 'tenant2']) {
      const identity = { tenantId: await bench.tenant(label, payload), operationId: OPERATION };
      deliveries.push(await worker.deliver(await bench.message(identity, payload)));
      await meter.checkpoint();
    }
    if (lacksTransactions(deliveries)) return skipped(NO_TRANSACTIONS);
    const shared = foreignRejections(bench);
    const effects = meter.count();
    const evidence = { outcomes: deliveries.map(describe).join(', '), effects, sharedRecords: shared.length };
    const problems: Problem[] = [
      ...deliveries.flatMap((delivery, index) =>
        describe(delivery) === 'succeeded'
          ? []
          : [{ text: `tenant ${index + 1}'s operation ended ${describe(delivery)}`, remedy: Remedy.completingSample }],
      ),
      ...(shared.length > 0
        ? [
            {
              text: `a record of ${shared.join(', ')} is shared across tenants (${refusedCall(bench)})`,
              remedy: Remedy.keyByTenant,
            },
          ]
        : []),
      ...(effects !== 2
        ? [{ text: `${effects} effect(s) for two tenants' operations`, remedy: Remedy.keyByTenant }]
        : []),
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
    const worker = await bench.worker('A');
    const deliveries: Delivery[] = [];
    for (const operationId of ['conformance-first', 'conformance-second']) {
      deliveries.push(await worker.deliver(await bench.message({ tenantId, operationId }, payload)));
    }
    if (lacksTransactions(deliveries)) return skipped(NO_TRANSACTIONS);
    const shared = foreignRejections(bench);
    const evidence = { outcomes: deliveries.map(describe).join(', '), foreignFenceRejections: shared.length };
    const problems: Problem[] = [
      ...(shared.length > 0
        ? [
            {
              text: `a record of ${[...new Set(shared)].join(', ')} is shared by two operations: the second one's ${refusedCall(bench)} was refused by the first one's fence (class B fences one operation's records)`,
              remedy: Remedy.keyByOperation,
            },
          ]
        : []),
      ...(deliveries[1] && describe(deliveries[1]) !== 'succeeded'
        ? [{ text: `the second operation ended ${describe(deliveries[1])}`, remedy: Remedy.completingSample }]
        : []),
    ];
    return judged(problems, 'both operations succeeded on their own records', evidence);
  },
};

export { changedPayload, changedPayloadScenario, collidingIds, duplicateDelivery, sharedRecord, staleResume };
