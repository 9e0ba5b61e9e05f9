import { sendConditional } from '../driver/conditional-write.js';
import { type Key, queryPage } from '../driver/connection.js';
import type { TableClient } from '../driver/plain-requests.js';
import { type ErasureBounds, erasePages, erasureKeyCondition } from '../payloads/erasure-bounds.js';
import { KeyPrefix, TableKeys } from '../table.js';
import { buildShadowErase, ERASED_EXECUTION_HASH } from './shadow-requests.js';

const PAGE_SIZE = 100;

/** True when a shadow row's executions still hold something erasure removes (a hash that is not a tombstone). */
function holdsExecutions(item: Record<string, unknown>): boolean {
  const executions = Array.isArray(item.x) ? (item.x as Array<{ h?: unknown }>) : [];
  return executions.some((execution) => execution.h !== ERASED_EXECUTION_HASH);
}

/**
 * Erases the shadow rows of one partition key of the jobs table (a Query on the `shadow#` rows, or one operation's
 * row with `operationId`, never a Scan; one
 * conditional UpdateItem per row still holding executions) until `max` writes were made; true when none is left.
 * A row a shadow start changed in between is left for the next call (its condition failed, nothing written).
 */
async function erasePartitionShadows(
  client: TableClient,
  jobsTable: string,
  partitionKey: string,
  bounds: ErasureBounds,
  operationId?: string,
): Promise<boolean> {
  const condition = erasureKeyCondition(partitionKey, KeyPrefix.shadow, operationId);
  const readPage = async (startKey: Key | undefined) => {
    const page = await queryPage(client, {
      TableName: jobsTable,
      KeyConditionExpression: condition.KeyConditionExpression,
      ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort, '#x': 'x' },
      ExpressionAttributeValues: condition.values,
      ProjectionExpression: '#pk, #sk, #x',
      Limit: PAGE_SIZE,
      ConsistentRead: true,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    });
    return { rows: page.items.filter(holdsExecutions), ...(page.next ? { next: page.next } : {}) };
  };
  return erasePages(bounds, readPage, async (row, now) => {
    const key = { pk: String(row.pk), sk: String(row.sk) };
    const count = (row.x as unknown[]).length;
    const outcome = await sendConditional(client, { kind: 'update', ...buildShadowErase(jobsTable, key, count, now) });
    if (outcome.ok) bounds.progress.shadowCleared = (bounds.progress.shadowCleared ?? 0) + 1;
  });
}

export { erasePartitionShadows };
