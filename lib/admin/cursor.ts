import * as z from 'zod/mini';
import { InvalidInputError } from '../errors.js';
import { JobsIndex } from '../store/index.js';
import type { ShardPosition } from './shard-merge.js';

/** Key attributes of our tables that hold numbers (index sort keys); every other key attribute is a string. */
const NUMERIC_KEY_ATTRIBUTES: ReadonlySet<string> = new Set([JobsIndex.byDeadline.sort, JobsIndex.parkedByState.sort]);

/** DynamoDB refuses key strings that are empty or longer than 1,024 bytes (sort keys): check before it can. */
function keyValueProblem(attribute: string, value: string | number): string | undefined {
  if (NUMERIC_KEY_ATTRIBUTES.has(attribute)) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
      ? undefined
      : `${attribute} is not a key number`;
  }
  if (typeof value !== 'string' || value.length === 0 || Buffer.byteLength(value, 'utf8') > 1024) {
    return `${attribute} is not a key string`;
  }
  return undefined;
}

/** Largest cursor accepted, in characters (a DynamoDB key is at most ~2 KB; its encoding stays well below). */
const MAX_CURSOR_LENGTH = 4096;

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
/** Key attribute values a DynamoDB LastEvaluatedKey holds in our tables: strings and numbers only. */
const keySchema = z.lazy(() =>
  z.record(z.string().check(z.maxLength(64)), z.union([z.string().check(z.maxLength(2048)), z.number()])),
);

/** Opaque pagination cursor: the LastEvaluatedKey, bound to the listing it came from by `scope`. */
function encodeCursor(scope: string, key: Record<string, unknown> | undefined): string | undefined {
  if (!key) return undefined;
  return Buffer.from(JSON.stringify({ s: scope, k: key }), 'utf8').toString('base64url');
}

/** The InvalidInputError on `cursor` every refusal raises. */
function invalidCursor(message: string): InvalidInputError {
  return new InvalidInputError(`invalid cursor: ${message}`, [{ path: 'cursor', message }]);
}

const FOREIGN = 'not a cursor of this API';
const OTHER_LISTING = 'belongs to a different listing (state, tenant or kind changed)';

/** The JSON inside a cursor of at most `maxLength` characters, or InvalidInputError: never trusts the text. */
function openCursor(cursor: string, maxLength: number): unknown {
  if (cursor.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor(FOREIGN);
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor(FOREIGN);
  }
}

/** Checks a decoded key holds exactly `expectedAttributes`, each a value DynamoDB accepts as a key. */
function checkKey(key: Record<string, string | number>, expectedAttributes: readonly string[]): void {
  const attributes = Object.keys(key).sort();
  if (attributes.join(',') !== [...expectedAttributes].sort().join(',')) throw invalidCursor(FOREIGN);
  for (const [attribute, value] of Object.entries(key)) {
    if (keyValueProblem(attribute, value)) throw invalidCursor(FOREIGN);
  }
}

/**
 * Decodes a cursor made by encodeCursor for the same `scope` and checks the key carries exactly the
 * `expectedAttributes`, with the `pinned` values (the partition being listed). Anything else ▶
 * InvalidInputError on `cursor`; a cursor never reaches DynamoDB unchecked.
 */
function decodeCursor(
  scope: string,
  cursor: string | undefined,
  expectedAttributes: readonly string[],
  pinned: Record<string, string> = {},
): Record<string, string | number> | undefined {
  if (cursor === undefined) return undefined;
  const parsed = z.strictObject({ s: z.string(), k: keySchema }).safeParse(openCursor(cursor, MAX_CURSOR_LENGTH));
  if (!parsed.success) throw invalidCursor(FOREIGN);
  if (parsed.data.s !== scope) throw invalidCursor(OTHER_LISTING);
  checkKey(parsed.data.k, expectedAttributes);
  for (const [attribute, value] of Object.entries(pinned)) {
    if (parsed.data.k[attribute] !== value) throw invalidCursor(OTHER_LISTING);
  }
  return parsed.data.k;
}

/** A DynamoDB key as the sharded listings carry it. */
type Key = Record<string, string | number>;

/**
 * Largest sharded cursor: 16 positions of at most ~350 characters each (tenant bucket key, `op#` + a 256-char
 * operation id, a time) stay under it; the CLI accepts cursors of this length.
 */
const MAX_SHARDED_CURSOR_LENGTH = 8192;

/** One shard's position in a cursor: 0 not started, 1 done, else the key without the shard's partition value. */
const positionSchema = z.lazy(() => z.union([z.literal(0), z.literal(1), keySchema]));

/**
 * Opaque cursor of a listing merged over `shardKeys.length` shards of an index whose partition attribute is
 * `partition` (each shard's key value is implied by its place, so it is not repeated). Undefined when every
 * shard is done: the listing has ended.
 */
function encodeShardCursor(
  scope: string,
  positions: readonly ShardPosition<Key>[],
  partition: string,
): string | undefined {
  if (positions.every((position) => position.at === 'done')) return undefined;
  const entries = positions.map((position) => {
    if (position.at !== 'after') return position.at === 'start' ? 0 : 1;
    const { [partition]: _implied, ...rest } = position.key;
    return rest;
  });
  return Buffer.from(JSON.stringify({ s: scope, p: entries }), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor made by encodeShardCursor for the same `scope` and shards: one position per shard, each key
 * holding exactly `keyAttributes` with the shard's own partition value put back. No cursor ▶ every shard from
 * its start. Anything else ▶ InvalidInputError on `cursor`; a cursor never reaches DynamoDB unchecked.
 */
function decodeShardCursor(
  scope: string,
  cursor: string | undefined,
  shardKeys: readonly string[],
  keyAttributes: readonly string[],
  partition: string,
): ShardPosition<Key>[] {
  if (cursor === undefined) return shardKeys.map(() => ({ at: 'start' }));
  const parsed = z
    .strictObject({ s: z.string(), p: z.array(positionSchema).check(z.maxLength(shardKeys.length)) })
    .safeParse(openCursor(cursor, MAX_SHARDED_CURSOR_LENGTH));
  if (!parsed.success) throw invalidCursor(FOREIGN);
  if (parsed.data.s !== scope) throw invalidCursor(OTHER_LISTING);
  if (parsed.data.p.length !== shardKeys.length) throw invalidCursor(FOREIGN);
  return parsed.data.p.map((entry, shard): ShardPosition<Key> => {
    if (entry === 0) return { at: 'start' };
    if (entry === 1) return { at: 'done' };
    if (partition in entry) throw invalidCursor(FOREIGN);
    const key = { ...entry, [partition]: shardKeys[shard] as string };
    checkKey(key, keyAttributes);
    return { at: 'after', key };
  });
}

export { decodeCursor, decodeShardCursor, encodeCursor, encodeShardCursor, type Key };
