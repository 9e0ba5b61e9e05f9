import * as z from 'zod';
import { InvalidInputError } from '../errors.js';

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
  for (const [attribute, value] of Object.entries(pinned)) {
    if (parsed.data.k[attribute] !== value)
      throw invalid('belongs to a different listing (state, tenant or kind changed)');
  }
  return parsed.data.k;
}

export { decodeCursor, encodeCursor };
