import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { jobsTableDefinition } from '../../../lib/store/table.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { tableShape } from '../support/capacity.js';
import { recordCapacity } from '../support/capacity-recorder.js';
import { BENCH_JOB_TYPE, benchIdentity, benchPayload, runName } from '../support/jobs.js';
import type { Units } from './capacity.js';

/**
 * What shadow mode writes per shadowed execution (the bill's "shadow mode" line, figure 10), by the capacity
 * accountant: the start (a conditional UpdateItem creating the identity's shadow row) and the end, as the shadow
 * wrapper records them through the store (lib/store/shadow/shadow-claims.ts).
 */
async function measureShadowUnits(engine: BenchEngine): Promise<Units> {
  const tables = await engine.createLeasefenceTables('shadow-capacity');
  const client = engine.documentClient();
  const recorder = recordCapacity(
    client,
    engine.rawClient(),
    new Map([[tables.jobsTable, tableShape(jobsTableDefinition(tables.jobsTable))]]),
    { documentClient: true },
  );
  const store = new OperatorStore({ client, tableName: tables.jobsTable });
  const identity = parseIdentity(benchIdentity(runName('shadow'), 0));
  const startedAt = Date.now();
  const fence = await store.shadow.start({
    identity,
    jobType: BENCH_JOB_TYPE,
    payloadHash: payloadHash(benchPayload(identity.operationId)),
    startedAt,
    leaseMs: 30_000,
    retentionMs: 86_400_000,
  });
  await store.shadow.end(identity, fence, { endedAt: startedAt + 10, outcome: 'succeeded' });
  const totals = recorder.totals();
  return { wru: totals.wru, rru: totals.rru, indexWru: totals.indexWru };
}

export { measureShadowUnits };
