import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { sendConditional } from '../store/conditional-write.js';
import { sweeperCursorKey, TableKeys } from '../store/table.js';
import type { WorkItemStore } from '../store/work-item-store.js';
import { sweep } from './sweeper.js';
import type { SweepCursor, SweepOptions, SweepSummary } from './types.js';

/** The cursor as stored in the sweeper's row, and the version it was read at (0 when there is no row). */
interface StoredSweepCursor {
  cursor: SweepCursor | undefined;
  version: number;
}

const storedSchema = z.object({
  nextShard: z.number().int().min(0).optional(),
  version: z.number().int().min(0),
});

/**
 * Reads where the last run of any container ended (one consistent GetItem on the `#sweeper` row).
 * A missing or malformed row is a fresh start at shard 0; storage errors propagate.
 */
async function loadSweepCursor(store: WorkItemStore): Promise<StoredSweepCursor> {
  const output = await store.client.send(
    new GetCommand({ TableName: store.table.tableName, Key: sweeperCursorKey(), ConsistentRead: true }),
  );
  const parsed = storedSchema.safeParse(output.Item);
  if (!parsed.success) return { cursor: undefined, version: 0 };
  const { nextShard, version } = parsed.data;
  return { cursor: nextShard === undefined ? undefined : { shard: nextShard }, version };
}

/**
 * Stores where the next run starts, only if nobody stored another position since `seenVersion` was read
 * (a conditional write; the sweeper's reserved concurrency of 1 makes a clash rare). Returns false when
 * another run won: its position stands, nothing is lost (the index is the truth).
 */
async function saveSweepCursor(
  store: WorkItemStore,
  seenVersion: number,
  cursor: SweepCursor | undefined,
): Promise<boolean> {
  const result = await sendConditional(store.client, {
    kind: 'update',
    TableName: store.table.tableName,
    Key: sweeperCursorKey(),
    UpdateExpression:
      cursor === undefined
        ? 'SET #version = :next, #updatedAt = :now REMOVE #nextShard'
        : 'SET #version = :next, #updatedAt = :now, #nextShard = :shard',
    ConditionExpression: 'attribute_not_exists(#pk) OR attribute_not_exists(#version) OR #version = :seen',
    ExpressionAttributeNames: {
      '#pk': TableKeys.partition,
      '#version': 'version',
      '#updatedAt': 'updatedAt',
      '#nextShard': 'nextShard',
    },
    ExpressionAttributeValues: {
      ':seen': seenVersion,
      ':next': seenVersion + 1,
      ':now': store.clock.now(),
      ...(cursor === undefined ? {} : { ':shard': cursor.shard }),
    },
  });
  return result.ok;
}

/** A run's summary and whether its cursor was stored. */
type StoredSweepSummary = SweepSummary & { cursorStored: boolean };

/**
 * One sweep that resumes where the last run of any container ended: load the stored cursor, sweep, store
 * the next one. A cold start no longer begins at shard 0, so under a backlog no shard waits more than a
 * bounded number of runs (see sweep). A failed run stores nothing: the next one starts where this one did.
 * @example
 * const summary = await sweepFromStoredCursor({ store, sqs, queueUrl });
 */
async function sweepFromStoredCursor(options: Omit<SweepOptions, 'cursor'>): Promise<StoredSweepSummary> {
  const stored = await loadSweepCursor(options.store);
  const summary = await sweep({ ...options, ...(stored.cursor ? { cursor: stored.cursor } : {}) });
  const cursorStored = await saveSweepCursor(options.store, stored.version, summary.cursor);
  return { ...summary, cursorStored };
}

export { loadSweepCursor, type StoredSweepCursor, type StoredSweepSummary, saveSweepCursor, sweepFromStoredCursor };
