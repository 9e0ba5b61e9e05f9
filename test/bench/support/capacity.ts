import type { AttributeValue, CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The capacity accountant: what DynamoDB bills for one request, by its documented rules, from the item's
 * before and after images (AttributeValue form). Rules (DynamoDB developer guide, "Item sizes", "Read/write
 * capacity units", "GSI write capacity"):
 * - item size = Σ (UTF-8 name length + value size); strings UTF-8 bytes, numbers 1 byte per two significant
 *   digits + 1, binary its bytes, boolean/null 1, list/map 3 bytes + (1 + element size) per element.
 * - a write costs ceil(size / 1 KB) of the larger of the before and after images, at least 1; a failed
 *   condition costs the existing item's size (at least 1) and writes no index.
 * - each GSI: put when the item enters it, delete when it leaves, delete + put when an index key changes, one
 *   update when only a projected attribute changes, nothing otherwise; each sized by its projected entry.
 * - transactions cost twice the units of every item they write.
 * - a read costs ceil(size / 4 KB), at least 1, halved when eventually consistent; a Query sums the sizes of
 *   the items it returns before rounding. GSI reads are always eventually consistent.
 * The index entry's own storage overhead (100 bytes) is not counted toward write units (the guide sizes an
 * index write by the projected attributes); that is the one judgement call of this model.
 */

type Item = Record<string, AttributeValue>;

/** What the accountant needs of a table: its key attributes and each GSI's keys and projection. */
interface TableShape {
  readonly keys: readonly string[];
  readonly indexes: readonly IndexShape[];
}

/** One GSI: its key attributes and the non-key attributes it projects ('ALL' = every attribute). */
interface IndexShape {
  readonly name: string;
  readonly keys: readonly string[];
  readonly projection: 'ALL' | readonly string[];
}

/** Write units of one request: on the table, and per index. `total` is what is billed. */
interface WriteCost {
  readonly table: number;
  readonly indexes: Readonly<Record<string, number>>;
  readonly total: number;
}

const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;

/** The shape of a table from its CreateTable input (the same definitions the library deploys). */
function tableShape(definition: CreateTableCommandInput): TableShape {
  const keys = (definition.KeySchema ?? []).map((key) => key.AttributeName as string);
  const indexes = (definition.GlobalSecondaryIndexes ?? []).map((index) => ({
    name: index.IndexName as string,
    keys: (index.KeySchema ?? []).map((key) => key.AttributeName as string),
    projection:
      index.Projection?.ProjectionType === 'INCLUDE'
        ? (index.Projection.NonKeyAttributes ?? [])
        : index.Projection?.ProjectionType === 'KEYS_ONLY'
          ? []
          : ('ALL' as const),
  }));
  return { keys, indexes };
}

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Significant digits of a DynamoDB number (leading and trailing zeros, sign, point and exponent dropped). */
function significantDigits(number: string): number {
  const mantissa = number.replace(/^[-+]/, '').split(/[eE]/)[0] ?? '';
  const digits = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.max(1, digits.length);
}

/** Size of one attribute value in bytes. */
function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return Math.ceil(significantDigits(value.N) / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, entry) => sum + utf8(entry), 0);
  if (value.NS !== undefined)
    return value.NS.reduce((sum, entry) => sum + Math.ceil(significantDigits(entry) / 2) + 1, 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, entry) => sum + entry.length, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, entry) => sum + 1 + valueSize(entry), 0);
  if (value.M !== undefined) {
    return 3 + Object.entries(value.M).reduce((sum, [name, entry]) => sum + 1 + utf8(name) + valueSize(entry), 0);
  }
  return 0;
}

/** Size of an item in bytes: every attribute's name and value. */
function itemSize(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
}

function writeUnits(item: Item | undefined): number {
  return item ? Math.max(1, Math.ceil(itemSize(item) / WRITE_UNIT_BYTES)) : 0;
}

/** The index entry an item has in `index` (keys of table and index + projected attributes), or none. */
function indexEntry(table: TableShape, index: IndexShape, item: Item | undefined): Item | undefined {
  if (!item || index.keys.some((key) => item[key] === undefined)) return undefined;
  if (index.projection === 'ALL') return item;
  const entry: Item = {};
  for (const name of [...table.keys, ...index.keys, ...index.projection]) {
    const value = item[name];
    if (value !== undefined) entry[name] = value;
  }
  return entry;
}

function sameValue(a: AttributeValue | undefined, b: AttributeValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameEntry(a: Item, b: Item): boolean {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].every((name) => sameValue(a[name], b[name]));
}

/** Write units one index spends when its item goes from `before` to `after`. */
function indexWriteUnits(table: TableShape, index: IndexShape, before: Item | undefined, after: Item | undefined) {
  const old = indexEntry(table, index, before);
  const next = indexEntry(table, index, after);
  if (!old && !next) return 0;
  if (!old || !next) return writeUnits(old ?? next);
  if (index.keys.some((key) => !sameValue(old[key], next[key]))) return writeUnits(old) + writeUnits(next);
  return sameEntry(old, next) ? 0 : Math.max(writeUnits(old), writeUnits(next));
}

/**
 * Units billed for one write of one item (PutItem, UpdateItem, DeleteItem, or one item of a transaction).
 * `before`/`after` are the item as stored before and after (undefined: absent); `conditionFailed` when the
 * write's condition was false (then `after` is ignored).
 */
function writeCost(
  table: TableShape,
  images: { before: Item | undefined; after: Item | undefined },
  options: { conditionFailed?: boolean; transactional?: boolean } = {},
): WriteCost {
  const factor = options.transactional ? 2 : 1;
  if (options.conditionFailed) {
    const units = Math.max(1, writeUnits(images.before)) * factor;
    return { table: units, indexes: {}, total: units };
  }
  const tableUnits = Math.max(1, writeUnits(images.before), writeUnits(images.after)) * factor;
  const indexes: Record<string, number> = {};
  let total = tableUnits;
  for (const index of table.indexes) {
    const units = indexWriteUnits(table, index, images.before, images.after) * factor;
    if (units > 0) indexes[index.name] = units;
    total += units;
  }
  return { table: tableUnits, indexes, total };
}

/** Read units of a GetItem (the item's full size) or a Query/Scan (the returned items' sizes summed). */
function readCost(items: readonly Item[], consistent: boolean): number {
  const bytes = items.reduce((sum, item) => sum + itemSize(item), 0);
  const units = Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES));
  return consistent ? units : units / 2;
}

/** On-demand price of a million jobs: WRU and RRU per job × the prices per million request units. */
function costPerMillionJobs(
  perJob: { wru: number; rru: number },
  prices: { perMillionWru: number; perMillionRru: number },
): number {
  return perJob.wru * prices.perMillionWru + perJob.rru * prices.perMillionRru;
}

export {
  costPerMillionJobs,
  type IndexShape,
  type Item,
  indexEntry,
  itemSize,
  readCost,
  type TableShape,
  tableShape,
  type WriteCost,
  writeCost,
};
