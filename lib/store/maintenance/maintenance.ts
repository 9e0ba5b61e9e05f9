import * as z from 'zod/mini';
import type { JobIdentity } from '../../identity.js';
import { sendConditional } from '../driver/conditional-write.js';
import type { Key, StoreConnection } from '../driver/connection.js';
import { sendGet, sendQuery, sendScan, sendTransactWrite } from '../driver/plain-requests.js';
import { buildProbeQuery } from '../parked/parked-requests.js';
import {
  buildRowScan,
  buildSweepCursorRead,
  buildSweepCursorUpdate,
  buildTransactionProbe,
  buildWorkItemScan,
} from './maintenance-requests.js';

/** The sweeper's stored position: the shard the next run starts at (none: shard 0) and the row's version. */
interface StoredCursorRow {
  nextShard?: number;
  version: number;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// whose first events never reach them does not pay for building them (BENCHMARKS.md figure 5).
const cursorRowSchema = z.lazy(() =>
  z.object({
    nextShard: z.optional(z.number().check(z.int(), z.gte(0))),
    version: z.number().check(z.int(), z.gte(0)),
  }),
);

/** One page of the fence scan: the identities it found and where the Scan goes on (absent: the table's end). */
interface WorkItemScanPage {
  identities: JobIdentity[];
  next?: Key;
}

/**
 * The rare whole-table chores of background services and recovery tools: the sweeper's cursor row, the fence
 * scan after a restore, the health probe, the engine's transaction probe and the
 * whole-table read of an audit. Nothing here is on a job's path.
 */
class Maintenance {
  constructor(private readonly db: StoreConnection) {}

  /** Reads the sweeper's cursor row (consistent). A missing or malformed row is version 0, no shard. */
  async loadSweepCursor(): Promise<StoredCursorRow> {
    const output = await sendGet(this.db.client, buildSweepCursorRead(this.db.table.tableName));
    const parsed = cursorRowSchema.safeParse(output.Item);
    if (!parsed.success) return { version: 0 };
    const { nextShard, version } = parsed.data;
    return { ...(nextShard === undefined ? {} : { nextShard }), version };
  }

  /**
   * Stores where the next sweep starts, only if nobody stored another position since `seenVersion` was read.
   * False when another run won: its position stands.
   */
  async saveSweepCursor(seenVersion: number, nextShard: number | undefined): Promise<boolean> {
    const { client, table, clock } = this.db;
    const update = buildSweepCursorUpdate(table.tableName, seenVersion, nextShard, clock.now());
    return (await sendConditional(client, { kind: 'update', ...update })).ok;
  }

  /** One page (at most `limit` rows read) of the identities of every work item, by a consistent Scan. */
  async scanWorkItems(limit: number, startKey?: Key): Promise<WorkItemScanPage> {
    const output = await sendScan(this.db.client, buildWorkItemScan(this.db.table.tableName, limit, startKey));
    const identities = (output.Items ?? []).map((row) => ({
      tenantId: row.tenantId as string,
      operationId: row.operationId as string,
    }));
    return { identities, ...(output.LastEvaluatedKey ? { next: output.LastEvaluatedKey } : {}) };
  }

  /**
   * Every row of the jobs table, whatever its kind, page by page to the table's end (consistent): for an audit
   * such as the privacy scan, which must not call a table clean after reading only its first page.
   */
  async *allRows(pageSize = 500): AsyncGenerator<Record<string, unknown>> {
    let startKey: Key | undefined;
    do {
      const output = await sendScan(this.db.client, buildRowScan(this.db.table.tableName, pageSize, startKey));
      yield* output.Items ?? [];
      startKey = output.LastEvaluatedKey;
    } while (startKey);
  }

  /**
   * True when the engine runs TransactWriteItems (class A jobs need it): a transaction holding one ConditionCheck
   * that writes nothing. dynalite answers UnknownOperationException; any refusal counts as "no".
   */
  async supportsTransactions(): Promise<boolean> {
    try {
      await sendTransactWrite(this.db.client, buildTransactionProbe(this.db.table.tableName));
      return true;
    } catch {
      return false;
    }
  }

  /** One cheap read of the jobs table and its parked index; throws when the table does not answer. */
  async probe(): Promise<void> {
    await sendQuery(this.db.client, buildProbeQuery(this.db.table.tableName));
  }
}

export { Maintenance, type StoredCursorRow, type WorkItemScanPage };
