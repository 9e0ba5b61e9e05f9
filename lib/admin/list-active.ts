import * as z from 'zod/mini';
import { InvalidInputError } from '../errors.js';
import type { OperatorStore } from '../store/index.js';
import { deadlineShardName, JobsIndex, TableKeys } from '../store/index.js';
import { cutPage, rowsToEvaluate } from './filtered-page.js';
import { type RecordView, recordView } from './views.js';

/** Which active items to list: claimed or queued, optionally one tenant, at least this old. */
interface ActiveListInput {
  state: 'claimed' | 'queued';
  tenantId?: string;
  limit: number;
  cursor?: string;
  /** Only items created at least this long ago (the index carries `createdAt`, not the lease's updates). */
  olderThanMs?: number;
  now: number;
}

/** One page, and where the next one starts. */
interface ActivePage {
  items: RecordView[];
  cursor?: string;
}

/** Queries per call at most (a filtered page can be short or empty); the cursor continues from there. */
const MAX_QUERIES = 50;

const KEY_ATTRIBUTES = [TableKeys.partition, TableKeys.sort, JobsIndex.byDeadline.partition, JobsIndex.byDeadline.sort];

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const cursorSchema = z.lazy(() =>
  z.strictObject({
    s: z.string(),
    shard: z.number().check(z.int(), z.gte(0), z.lte(999)),
    k: z.optional(z.record(z.string(), z.union([z.string().check(z.maxLength(2048)), z.number()]))),
  }),
);

function encode(scope: string, shard: number, key: Record<string, unknown> | undefined): string {
  return Buffer.from(JSON.stringify({ s: scope, shard, ...(key ? { k: key } : {}) }), 'utf8').toString('base64url');
}

/** Decodes a cursor of this listing; anything else ▶ InvalidInputError on `cursor` (never reaches DynamoDB unchecked). */
function decode(scope: string, cursor: string): { shard: number; key?: Record<string, string | number> } {
  const invalid = (why: string) => new InvalidInputError(`invalid cursor: ${why}`, [{ path: 'cursor', message: why }]);
  let parsed: z.infer<typeof cursorSchema>;
  try {
    parsed = cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw invalid('not a cursor of this listing');
  }
  if (parsed.s !== scope) throw invalid('belongs to a different listing (state or tenant changed)');
  if (parsed.k) {
    const attributes = Object.keys(parsed.k).sort().join(',');
    if (attributes !== [...KEY_ATTRIBUTES].sort().join(',')) throw invalid('not a cursor of this listing');
    if (parsed.k[JobsIndex.byDeadline.partition] !== deadlineShardName(parsed.shard)) {
      throw invalid('not a cursor of this listing');
    }
  }
  return { shard: parsed.shard, ...(parsed.k ? { key: parsed.k } : {}) };
}

/**
 * Lists claimed or queued items through the sparse, write-sharded deadline index (a Query per shard, never a
 * Scan), shard by shard, deadline order within a shard, filtered by state, tenant and age. Paginated with an
 * opaque cursor; a page can be shorter than `limit` (even empty) while a cursor is returned. A bad cursor ▶
 * InvalidInputError.
 */
async function listActive(store: OperatorStore, input: ActiveListInput): Promise<ActivePage> {
  const scope = `active:${input.state}:${input.tenantId ?? ''}`;
  const start = input.cursor ? decode(scope, input.cursor) : { shard: 0 };
  let shard = start.shard;
  let key: Record<string, unknown> | undefined = start.key;
  const filters = {
    state: input.state,
    ...(input.tenantId ? { tenantId: input.tenantId } : {}),
    ...(input.olderThanMs !== undefined ? { createdAtOrBefore: input.now - input.olderThanMs } : {}),
  };
  const shards = store.deadlines.shardCount;
  const items: RecordView[] = [];
  for (let queries = 0; queries < MAX_QUERIES && shard < shards && items.length < input.limit; ) {
    queries += 1;
    const wanted = input.limit - items.length;
    const read = await store.deadlines.activePage(shard, {
      ...filters,
      limit: rowsToEvaluate(wanted, true),
      ...(key ? { startKey: key } : {}),
    });
    const page = cutPage(read.items, wanted, read.next, KEY_ATTRIBUTES);
    items.push(...page.rows.map(recordView));
    key = page.next;
    if (!key) shard += 1;
  }
  const more = shard < shards;
  return { items, ...(more ? { cursor: encode(scope, shard, key) } : {}) };
}

export { type ActiveListInput, type ActivePage, listActive };
