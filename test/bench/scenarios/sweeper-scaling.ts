import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { startSqsEngine } from '../../../infra/local/engines.js';
import { ManualClock } from '../../../lib/clock.js';
import { createSqsClient } from '../../../lib/sqs-client.js';
import { WorkState } from '../../../lib/states.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { batchPutItems } from '../../support/bulk-write.js';
import { workItemInState } from '../../support/factories.js';
import { countRequests } from '../../support/request-counter.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { BENCH_ENGINE } from '../support/bench-engine.js';
import { nowMs } from '../support/stats.js';

/** One table size of figure 4: what one sweep read and did. */
interface SweeperRow {
  totalItems: number;
  expiredItems: number;
  loadSeconds: number;
  readRequests: number;
  itemsRead: number;
  readCapacityUnits: number;
  writeRequests: number;
  sweptToUnknown: number;
  resignalled: number;
  sweepMs: number;
}

/** Figure 4: rows by table size, and how the largest compares with the smallest. */
interface SweeperScaling {
  rows: SweeperRow[];
  readRequestRatio: number;
  itemsReadRatio: number;
}

const HOUR = 3_600_000;
const LOAD_CHUNK = 5_000;
const WRITERS = 4;
const TENANTS = 10;
/** Healthy rows cycle through these: live leases and future retries sit in the deadline index, ahead of now. */
const HEALTHY_STATES = [
  WorkState.claimed,
  WorkState.queued,
  WorkState.succeeded,
  WorkState.failed_terminal,
  WorkState.cancelled,
] as const;

/** Row `index` of a table with `expired` expired leases first (half of them exhausted), then healthy rows. */
function rowAt(prefix: string, index: number, expired: number, now: number): WorkItem {
  const identity = { tenantId: `tenant-${index % TENANTS}`, operationId: `${prefix}-${index}` };
  if (index < expired) {
    const exhausted = index % 2 === 0;
    return workItemInState({
      identity,
      state: WorkState.claimed,
      now,
      overrides: { fence: 2, attempts: exhausted ? 3 : 1, leaseExpiresAt: now - 60_000, deadlineAt: now - 60_000 },
    });
  }
  const state = HEALTHY_STATES[index % HEALTHY_STATES.length] ?? WorkState.succeeded;
  const overrides: Partial<WorkItem> =
    state === WorkState.claimed
      ? { leaseExpiresAt: now + HOUR, deadlineAt: now + HOUR }
      : state === WorkState.queued
        ? { availableAt: now + HOUR, deadlineAt: now + HOUR }
        : {};
  return workItemInState({ identity, state, now, overrides });
}

/** Loads `total` rows with BatchWriteItem (25 per request, several writers), generated chunk by chunk. */
async function load(engine: BenchEngine, tableName: string, total: number, expired: number, now: number) {
  const client = engine.documentClient();
  const prefix = `sweep-${total}`;
  for (let start = 0; start < total; start += LOAD_CHUNK) {
    const chunk = Array.from({ length: Math.min(LOAD_CHUNK, total - start) }, (_, offset) =>
      rowAt(prefix, start + offset, expired, now),
    );
    await batchPutItems(client, tableName, chunk, WRITERS);
  }
}

/**
 * Figure 4: one sweep over a table with `expired` expired leases among `total` rows, per size. The sweeper
 * queries only the sparse deadline index below `now`, so its reads should not depend on the table size.
 */
async function measureSweeperScaling(
  engine: BenchEngine,
  options: { sizes: readonly number[]; expired: number; onProgress?: (message: string) => void },
): Promise<SweeperScaling> {
  const sqsEngine = await startSqsEngine(BENCH_ENGINE);
  const sqs = createSqsClient({ endpoint: sqsEngine.endpoint });
  const rows: SweeperRow[] = [];
  try {
    for (const total of options.sizes) {
      const tables = await engine.createLeasefenceTables(`sweep-${total}`);
      const clock = new ManualClock(Date.now());
      const loadStarted = nowMs();
      await load(engine, tables.jobsTable, total, options.expired, clock.now());
      const loadSeconds = (nowMs() - loadStarted) / 1000;
      options.onProgress?.(`loaded ${total} rows in ${loadSeconds.toFixed(1)} s`);
      const queue = await sqs.send(new CreateQueueCommand({ QueueName: `sweep-${total}-${Date.now()}` }));
      const client = engine.documentClient();
      const counter = countRequests(client);
      const store = new OperatorStore({ client, tableName: tables.jobsTable, clock });
      const sweepStarted = nowMs();
      const summary = await sweep({ store, sqs, queueUrl: queue.QueueUrl ?? '', clock });
      const sweepMs = nowMs() - sweepStarted;
      if (counter.reads() !== summary.readRequests) {
        throw new Error(`request counter saw ${counter.reads()} reads, the sweep reported ${summary.readRequests}`);
      }
      rows.push({
        totalItems: total,
        expiredItems: options.expired,
        loadSeconds,
        readRequests: summary.readRequests,
        itemsRead: summary.itemsRead,
        readCapacityUnits: summary.readCapacityUnits,
        writeRequests: counter.writes(),
        sweptToUnknown: summary.sweptToUnknown,
        resignalled: summary.resignalled,
        sweepMs,
      });
    }
  } finally {
    sqs.destroy();
    await sqsEngine.stop();
  }
  const first = rows[0] as SweeperRow;
  const last = rows[rows.length - 1] as SweeperRow;
  return {
    rows,
    readRequestRatio: last.readRequests / first.readRequests,
    itemsReadRatio: last.itemsRead / first.itemsRead,
  };
}

export { measureSweeperScaling, type SweeperRow, type SweeperScaling };
