import * as z from 'zod';
import { InvalidInputError } from '../errors.js';
import { JobsIndex } from '../table.js';

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

/** Key attribute values a DynamoDB LastEvaluatedKey holds in our tables: strings and numbers only. */
const keySchema = z.record(z.string().max(64), z.union([z.string().max(2048), z.number()]));

/** Opaque pagination cursor: the LastEvaluatedKey, bound to the listing it came from by `scope`. */
function encodeCursor(scope: string, key: Record<string, unknown> | undefined): string | undefined {
  if (!key) return undefined;
  return Buffer.from(JSON.stringify({ s: scope, k: key }), 'utf8').toString('base64url');
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
  const invalid = (message: string) =>
    new InvalidInputError(`invalid cursor: ${message}`, [{ path: 'cursor', message }]);
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('not a cursor of this API');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not a cursor of this API');
  }
  const parsed = z.strictObject({ s: z.string(), k: keySchema }).safeParse(decoded);
  if (!parsed.success) throw invalid('not a cursor of this API');
  if (parsed.data.s !== scope) throw invalid('belongs to a different listing (state, tenant or kind changed)');
  const attributes = Object.keys(parsed.data.k).sort();
  if (attributes.join(',') !== [...expectedAttributes].sort().join(',')) throw invalid('not a cursor of this API');
  for (const [attribute, value] of Object.entries(parsed.data.k)) {
    if (keyValueProblem(attribute, value)) throw invalid('not a cursor of this API');
  }
  for (const [attribute, value] of Object.entries(pinned)) {
    if (parsed.data.k[attribute] !== value)
      throw invalid('belongs to a different listing (state, tenant or kind changed)');
  }
  return parsed.data.k;
}

export { decodeCursor, encodeCursor };
