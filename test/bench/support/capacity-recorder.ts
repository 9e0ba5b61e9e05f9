import { type AttributeValue, type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { type Item, itemSize, readCost, type TableShape, type WriteCost, writeCost } from './capacity.js';

/** What one request was billed by the accountant, and what the engine reported where it reports it. */
interface CapacityRecord {
  readonly command: string;
  readonly tableName: string;
  /** Partition key the request addressed (base-table item requests only). */
  readonly partitionKey?: string;
  readonly write?: WriteCost;
  readonly read?: number;
  readonly conditionFailed: boolean;
  /** Table units from ReturnConsumedCapacity INDEXES (dynalite reports the table part, no index part). */
  readonly engineTableUnits?: number;
  /** Size in bytes of the item after the write (writes that leave an item). */
  readonly afterBytes?: number;
  /**
   * The GetItem that follows a failed condition on the same key: dynalite ignores
   * ReturnValuesOnConditionCheckFailure, DynamoDB returns the item with the failure. Left out of the totals.
   */
  readonly readBack?: boolean;
}

/** Records the capacity of every request a client sends, by the accountant's rules (see capacity.ts). */
interface CapacityRecorder {
  readonly records: CapacityRecord[];
  /** Write and read units since the last reset. */
  totals(): { wru: number; rru: number; indexWru: number };
  /** Requests whose table units differ from what the engine reported. */
  mismatches(): CapacityRecord[];
  reset(): void;
  detach(): void;
}

type Stack = {
  add(middleware: unknown, options: Record<string, unknown>): void;
  remove(name: string): boolean;
};

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);
const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand']);

/** The client's command name without the DocumentClient's spelling (PutCommand ▶ PutItemCommand). */
function commandName(name: string): string {
  const document: Record<string, string> = {
    PutCommand: 'PutItemCommand',
    UpdateCommand: 'UpdateItemCommand',
    DeleteCommand: 'DeleteItemCommand',
    GetCommand: 'GetItemCommand',
  };
  return document[name] ?? name;
}

function keyOf(shape: TableShape, input: { Key?: Item; Item?: Item }): Item {
  if (input.Key) return input.Key;
  const key: Item = {};
  for (const name of shape.keys) key[name] = input.Item?.[name] as AttributeValue;
  return key;
}

/**
 * Adds the accountant to a client's middleware stack: asks the engine for ReturnConsumedCapacity INDEXES,
 * reads the item before and after each write through `observer` (a separate, unrecorded client), and
 * records the units. Tables not in `shapes` are taken as keyed by `pk` with no index. Requests
 * must not race on one item (the images are read around each write): scenarios run one job at a time.
 */
function recordCapacity(
  client: { middlewareStack: unknown },
  observer: DynamoDBClient,
  shapes: ReadonlyMap<string, TableShape>,
  options: { documentClient: boolean },
): CapacityRecorder {
  // A DocumentClient's output reaches this step unmarshalled; a DynamoDBClient's does not.
  const asItem = (item: Record<string, unknown>): Item =>
    options.documentClient ? marshall(item, { removeUndefinedValues: true }) : (item as Item);
  const stack = client.middlewareStack as Stack;
  const records: CapacityRecord[] = [];
  let failedKey: string | undefined;
  const suffix = Math.random().toString(36).slice(2);
  const read = async (tableName: string, key: Item) =>
    (await observer.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

  stack.add(
    (next: (args: { input: Record<string, unknown> }) => Promise<unknown>) =>
      async (args: { input: Record<string, unknown> }) =>
        next({
          ...args,
          input: { ...args.input, ReturnConsumedCapacity: args.input.ReturnConsumedCapacity ?? 'INDEXES' },
        }),
    { step: 'initialize', priority: 'low', name: `capacity-ask-${suffix}` },
  );
  stack.add(
    (
      next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>,
      context: { commandName?: string },
    ) =>
      async (args: { input: Record<string, unknown> }) => {
        const command = commandName(String(context.commandName));
        const input = args.input as {
          TableName: string;
          Key?: Item;
          Item?: Item;
          IndexName?: string;
          ConsistentRead?: boolean;
        };
        const shape = shapes.get(input.TableName) ?? { keys: ['pk'], indexes: [] };
        if (WRITES.has(command)) {
          const key = keyOf(shape, input);
          const before = await read(input.TableName, key);
          try {
            const result = await next(args);
            const after = await read(input.TableName, key);
            const consumed = result.output.ConsumedCapacity as { Table?: { CapacityUnits?: number } } | undefined;
            records.push({
              command,
              tableName: input.TableName,
              partitionKey: key[shape.keys[0] as string]?.S,
              write: writeCost(shape, { before, after }),
              conditionFailed: false,
              ...(consumed?.Table?.CapacityUnits !== undefined
                ? { engineTableUnits: consumed.Table.CapacityUnits }
                : {}),
              ...(after ? { afterBytes: itemSize(after) } : {}),
            });
            return result;
          } catch (error) {
            if ((error as { name?: string }).name === 'ConditionalCheckFailedException') {
              failedKey = JSON.stringify([input.TableName, key]);
              records.push({
                command,
                tableName: input.TableName,
                partitionKey: key[shape.keys[0] as string]?.S,
                write: writeCost(shape, { before, after: undefined }, { conditionFailed: true }),
                conditionFailed: true,
              });
            }
            throw error;
          }
        }
        const result = await next(args);
        const readBack = command === 'GetItemCommand' && failedKey === JSON.stringify([input.TableName, input.Key]);
        failedKey = undefined;
        if (READS.has(command)) {
          const consistent = input.ConsistentRead === true && input.IndexName === undefined;
          const items =
            command === 'GetItemCommand'
              ? [await read(input.TableName, input.Key as Item)].filter((item): item is Item => item !== undefined)
              : ((result.output.Items as Record<string, unknown>[] | undefined) ?? []).map(asItem);
          const consumed = result.output.ConsumedCapacity as { CapacityUnits?: number } | undefined;
          records.push({
            command,
            tableName: input.TableName,
            read: readCost(items, consistent),
            conditionFailed: false,
            ...(readBack ? { readBack } : {}),
            ...(consumed?.CapacityUnits !== undefined ? { engineTableUnits: consumed.CapacityUnits } : {}),
          });
        }
        return result;
      },
    { step: 'build', priority: 'high', name: `capacity-record-${suffix}` },
  );
  return {
    records,
    totals: () => ({
      wru: records.reduce((sum, record) => sum + (record.write?.total ?? 0), 0),
      rru: records.reduce((sum, record) => sum + (record.readBack ? 0 : (record.read ?? 0)), 0),
      indexWru: records.reduce((sum, record) => sum + (record.write ? record.write.total - record.write.table : 0), 0),
    }),
    mismatches: () =>
      records.filter(
        (record) =>
          record.engineTableUnits !== undefined && record.engineTableUnits !== (record.write?.table ?? record.read),
      ),
    reset: () => {
      records.length = 0;
    },
    detach: () => {
      stack.remove(`capacity-ask-${suffix}`);
      stack.remove(`capacity-record-${suffix}`);
    },
  };
}

export { type CapacityRecord, type CapacityRecorder, recordCapacity };
