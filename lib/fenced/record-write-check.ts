import { memoizeBounded } from '../internal/memoize.js';
import { isOrdinaryObject, onlyEnumerableStringKeys, ownKeysWithin } from '../internal/object-shape.js';
import { isWriterAttribute, tableNameSchema } from '../rules.js';
import { isPlainRecord } from '../store/index.js';
import { attributePathProblem } from './conditions.js';

/** A record's table and key, as the ref schema returns them. */
type CheckedRef = { tableName: string; key: Record<string, unknown> };

/** The write as record-requests.ts's schemas return it (a RecordWrite), for the shapes checked here. */
type CheckedRecordWrite =
  | { kind: 'put'; ref: CheckedRef; item: Record<string, unknown>; writeId?: string }
  | { kind: 'update'; ref: CheckedRef; change: { set?: Record<string, unknown>; writeId?: string } };

/**
 * The common shapes of a fenced record write checked in one pass, ahead of the full zod schemas in
 * record-requests.ts: a put `{ kind, ref, item, writeId? }` and an update `{ kind, ref, change: { set?, writeId? } }`,
 * built of plain objects. This check only ever accepts: a write it fully understands and finds valid is returned
 * exactly as the schema would return it (the same copies, the same keys); anything else (a `where`, a `remove`,
 * an unusual object, any doubt, any invalid field) returns undefined and the caller parses with the schema, which
 * gives the verdict and the typed error. So it refuses nothing the schema accepts and accepts nothing it refuses
 * (test/unit/fenced/record-write-check.test.ts checks both on generated writes). Why: a zod parse of each write
 * was the largest part of the fenced write's own CPU on figure 9's path (test/bench/README.md, "Worker CPU").
 */
function checkSimpleRecordWrite(write: unknown): CheckedRecordWrite | undefined {
  if (!isOrdinaryObject(write)) return undefined;
  const kind = write.kind;
  if (kind === 'put') return checkPut(write);
  if (kind === 'update') return checkUpdate(write);
  return undefined;
}

const PUT_KEYS: ReadonlySet<string> = new Set(['kind', 'ref', 'item', 'writeId']);
const UPDATE_KEYS: ReadonlySet<string> = new Set(['kind', 'ref', 'change']);
const CHANGE_KEYS: ReadonlySet<string> = new Set(['set', 'writeId']);
const REF_KEYS: ReadonlySet<string> = new Set(['tableName', 'key']);
/** The most attributes one update sets (record-requests.ts's schema and this check). */
const MAX_SET_ATTRIBUTES = 100;
/** The longest write id, in characters (record-requests.ts's schema and this check). */
const MAX_WRITE_ID_CHARS = 200;

/**
 * Table names recur on every job: each distinct name is checked with the schema's own rule once and the verdict
 * kept (a bounded cache); a refused name sends the write to the schema, which reports it.
 */
const validTableName = memoizeBounded((name) => tableNameSchema.safeParse(name).success, 256);

function checkPut(write: Record<string, unknown>): CheckedRecordWrite | undefined {
  if (!ownKeysWithin(write, PUT_KEYS, ['kind', 'ref', 'item'])) return undefined;
  const ref = checkRef(write.ref);
  const item = write.item;
  if (ref === undefined || !isAttributeRecord(item)) return undefined;
  const names = Object.keys(item);
  for (const name of names) if (name === '' || isWriterAttribute(name)) return undefined;
  if (!writeIdAcceptable(write)) return undefined;
  const checked: CheckedRecordWrite & { kind: 'put' } = {
    kind: 'put',
    ref,
    item: { ...item },
  };
  if ('writeId' in write) checked.writeId = write.writeId as string;
  return checked;
}

function checkUpdate(write: Record<string, unknown>): CheckedRecordWrite | undefined {
  if (!ownKeysWithin(write, UPDATE_KEYS, ['kind', 'ref', 'change'])) return undefined;
  const ref = checkRef(write.ref);
  const change = write.change;
  if (ref === undefined || !isOrdinaryObject(change) || !ownKeysWithin(change, CHANGE_KEYS, [])) return undefined;
  if (!writeIdAcceptable(change)) return undefined;
  const checkedChange: { set?: Record<string, unknown>; writeId?: string } = {};
  if ('set' in change) {
    const set = change.set;
    // A map the schema copies key by key: only string keys, every one enumerable, none of them __proto__.
    if (!isOrdinaryObject(set) || !isPlainRecord(set) || !onlyEnumerableStringKeys(set)) return undefined;
    const paths = Object.keys(set);
    if (paths.length > MAX_SET_ATTRIBUTES) return undefined;
    const keyNames = Object.keys(ref.key);
    for (const path of paths) {
      if (path === '__proto__' || attributePathProblem(path) !== undefined) return undefined;
      if (keyNames.includes(path.split('.')[0] ?? '')) return undefined;
    }
    checkedChange.set = { ...set };
  }
  if ('writeId' in change) checkedChange.writeId = change.writeId as string;
  return { kind: 'update', ref, change: checkedChange };
}

/** The ref as the schema returns it (`key` copied), or undefined when it is not plainly valid. */
function checkRef(ref: unknown): CheckedRef | undefined {
  if (!isOrdinaryObject(ref) || !ownKeysWithin(ref, REF_KEYS, ['tableName', 'key'])) return undefined;
  const { tableName, key } = ref;
  if (typeof tableName !== 'string' || !validTableName(tableName) || !isAttributeRecord(key)) return undefined;
  const names = Object.keys(key);
  if (names.length < 1 || names.length > 2 || names.includes('')) return undefined;
  return { tableName, key: { ...key } };
}

/** Absent, or a string of 1 to 200 characters (a present `undefined` is left to the schema). */
function writeIdAcceptable(holder: Record<string, unknown>): boolean {
  if (!('writeId' in holder)) return true;
  const writeId = holder.writeId;
  return typeof writeId === 'string' && writeId.length >= 1 && writeId.length <= MAX_WRITE_ID_CHARS;
}

/** What the schema's attribute check accepts: a non-null object that converts as a plain map. */
function isAttributeRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && isPlainRecord(value);
}

export { type CheckedRecordWrite, checkSimpleRecordWrite, MAX_SET_ATTRIBUTES, MAX_WRITE_ID_CHARS };
