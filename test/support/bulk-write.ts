import { BatchWriteCommand, type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mapBounded } from '../../lib/internal/bounded-parallel.js';

/** BatchWriteItem takes at most 25 requests. */
const BATCH_SIZE = 25;

/**
 * Writes many raw rows fast: BatchWriteItem of 25, several batches in flight, unprocessed items re-sent
 * (bounded). Tests only: it bypasses every condition, like a factory should.
 */
async function batchPutItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: readonly object[],
  inFlight = 8,
): Promise<void> {
  const batches: object[][] = [];
  for (let start = 0; start < items.length; start += BATCH_SIZE) batches.push(items.slice(start, start + BATCH_SIZE));
  await mapBounded(batches, inFlight, async (batch) => {
    let pending = batch.map((item) => ({ PutRequest: { Item: item as Record<string, unknown> } }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt === 10) throw new Error(`batch write left ${pending.length} items unprocessed`);
      const output = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  });
}

/** Every row of the given partitions (Query per partition, all pages): a table snapshot without a Scan. */
async function readPartitions(
  client: DynamoDBDocumentClient,
  tableName: string,
  partitions: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const rows = new Map<string, Record<string, unknown>>();
  for (const pk of partitions) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of page.Items ?? []) rows.set(`${item.pk}|${item.sk}`, item);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
  return rows;
}

export { batchPutItems, readPartitions };
