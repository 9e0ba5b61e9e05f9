import { WriterAttribute } from '../rules.js';
import { sendScan, type TableClient } from '../store/index.js';

/** The highest `writer_epoch` found, and in how many records of how many tables. */
interface RecordFloor {
  highestWriterEpoch: number;
  recordsRead: number;
  tables: number;
}

/**
 * The highest `writer_epoch` in every record of `tableNames` (consistent paginated Scans projecting only that
 * attribute): after a restore, the floor every new fence must clear. A recovery tool, never a hot path; a table
 * that cannot be read throws (a floor found without it could be too low, which is the unsafe direction).
 */
async function readRecordFloor(client: TableClient, tableNames: readonly string[]): Promise<RecordFloor> {
  const floor: RecordFloor = { highestWriterEpoch: 0, recordsRead: 0, tables: 0 };
  for (const tableName of new Set(tableNames)) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await sendScan(client, {
        TableName: tableName,
        ProjectionExpression: '#epoch',
        ExpressionAttributeNames: { '#epoch': WriterAttribute.epoch },
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      for (const item of page.Items ?? []) {
        floor.recordsRead += 1;
        const epoch = item[WriterAttribute.epoch];
        if (typeof epoch === 'number' && epoch > floor.highestWriterEpoch) floor.highestWriterEpoch = epoch;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    floor.tables += 1;
  }
  return floor;
}

export { type RecordFloor, readRecordFloor };
