import * as z from 'zod/mini';
import { tenantIdSchema } from '../identity.js';
import { mapBounded } from '../internal/bounded-parallel.js';
import { parseInput } from '../internal/validation.js';
import { isParkedState, PARKED_STATES, WORK_STATES, WorkState } from '../states.js';
import { JobsIndex, PARKED_SHARD_READS_IN_FLIGHT, parkedShards, TableKeys } from '../store/index.js';
import { decodeShardCursor, encodeShardCursor, type Key } from './cursor.js';
import { type AdminDeps, adminClock } from './deps.js';
import { listActive } from './list-active.js';
import { listTenantItems } from './list-tenant.js';
import { pageLimitSchema, parkedStateSchema } from './schemas.js';
import { mergeShardPages, type ShardPosition } from './shard-merge.js';

const PARKED_LISTING: readonly WorkState[] = PARKED_STATES;

import { type RecordView, recordView } from './views.js';

/** Which parked items to list: one state, optionally one tenant, a page size and where to continue. */
interface ListParkedInput {
  state: WorkState;
  tenantId?: string;
  limit?: number;
  cursor?: string;
}

/** One page of parked records (work items and quarantine records, told apart by `kind`), oldest first. */
interface ParkedPage {
  items: RecordView[];
  cursor?: string;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const listSchema = z.lazy(() =>
  z.strictObject({
    state: parkedStateSchema,
    tenantId: z.optional(tenantIdSchema),
    limit: z._default(pageLimitSchema, 25), // default page size
    cursor: z.optional(z.string()),
  }),
);

/**
 * Merge order of parked records: parkedAt, then the table key (code-unit order), so the choice between shards is
 * total and repeatable. Within a shard the index's own order stands (a GSI documents none for equal times).
 */
function parkedOrder(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const byTime = Number(a[JobsIndex.parkedByState.sort]) - Number(b[JobsIndex.parkedByState.sort]);
  if (byTime !== 0) return byTime;
  const keyOf = (item: Record<string, unknown>) => `${item[TableKeys.partition]}\u0000${item[TableKeys.sort]}`;
  const [left, right] = [keyOf(a), keyOf(b)];
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Lists items parked in `state`, oldest first across the parked index's shards (per tenant when `tenantId` is
 * given, else across tenants): one Query per unfinished shard (Limit = page size, bounded in flight), merged by
 * parkedAt. The cursor is opaque, holds each shard's position, is bound to this listing and validated before use.
 * Bad input or a foreign cursor ▶ InvalidInputError naming the field.
 * @example
 * const page = await listParked(deps, { state: 'unknown', tenantId: 'acme', limit: 50 });
 */
async function listParked(deps: AdminDeps, input: ListParkedInput): Promise<ParkedPage> {
  const valid = parseInput(listSchema, input, 'listing');
  const { index, keys } = parkedShards(valid.state, valid.tenantId);
  const scope = `${index.name}:${valid.tenantId ?? '*'}:${valid.state}`;
  const keyAttributes = [TableKeys.partition, TableKeys.sort, index.partition, index.sort];
  const positions = decodeShardCursor(scope, valid.cursor, keys, keyAttributes, index.partition);
  const pages = await mapBounded(keys, PARKED_SHARD_READS_IN_FLIGHT, async (key, shard) => {
    const position = positions[shard] as ShardPosition<Key>;
    if (position.at === 'done') return undefined;
    const page = await deps.store.parked.page(
      index,
      key,
      valid.limit,
      position.at === 'after' ? position.key : undefined,
    );
    const next = page.next as Key | undefined;
    return { items: page.items, ...(next ? { next } : {}) };
  });
  const keyOf = (item: Record<string, unknown>): Key =>
    Object.fromEntries(keyAttributes.map((attribute) => [attribute, item[attribute] as string | number]));
  const merged = mergeShardPages(positions, pages, valid.limit, parkedOrder, keyOf);
  const cursor = encodeShardCursor(scope, merged.positions, index.partition);
  return { items: merged.items.map(recordView), ...(cursor ? { cursor } : {}) };
}

/** Which items to list: a state (any of the seven), a tenant, both; at least this old; a page and where to continue. */
interface ListItemsInput {
  state?: WorkState;
  tenantId?: string;
  limit?: number;
  cursor?: string;
  /** Only items parked (parked states), claimed or created (claimed, queued) at least this long ago. */
  olderThanMs?: number;
}

/** States listed across tenants through a sparse index; every other state needs a tenant (else a Scan). */
const CROSS_TENANT_STATES: readonly WorkState[] = [...PARKED_LISTING, WorkState.claimed, WorkState.queued];

const itemsSchema = z.lazy(() =>
  z
    .strictObject({
      state: z.optional(z.enum(WORK_STATES)),
      tenantId: z.optional(tenantIdSchema),
      limit: z._default(pageLimitSchema, 25),
      cursor: z.optional(z.string()),
      olderThanMs: z.optional(z.number().check(z.int(), z.gte(0))),
    })
    .check(
      z.refine((value) => value.state !== undefined || value.tenantId !== undefined, {
        message: 'state is required unless a tenant is given',
        path: ['state'],
      }),
      z.refine((value) => value.tenantId !== undefined || CROSS_TENANT_STATES.includes(value.state as WorkState), {
        message: 'listing this state across tenants would need a Scan: name a tenant',
        path: ['tenant'],
      }),
      z.refine((value) => value.olderThanMs === undefined || CROSS_TENANT_STATES.includes(value.state as WorkState), {
        message: 'an age bound applies to parked, claimed and queued listings',
        path: ['olderThan'],
      }),
    ),
);

/**
 * Lists items in any state without a Scan: parked states through the parked indexes (oldest first), claimed and
 * queued through the deadline index (a tenant is a filter there), anything else (succeeded, cancelled, or every state) through a Query on the
 * tenant's partition keys, so those need a tenant. Bad input ▶ InvalidInputError naming the field.
 * @example
 * const page = await listItems(deps, { state: 'succeeded', tenantId: 'acme', limit: 50 });
 */
async function listItems(deps: AdminDeps, input: ListItemsInput): Promise<ParkedPage> {
  const valid = parseInput(itemsSchema, input, 'listing');
  const tenant = valid.tenantId !== undefined ? { tenantId: valid.tenantId } : {};
  const cursor = valid.cursor !== undefined ? { cursor: valid.cursor } : {};
  const state = valid.state;
  if (state !== undefined && isParkedState(state)) {
    const page = await listParked(deps, { state, limit: valid.limit, ...tenant, ...cursor });
    if (valid.olderThanMs === undefined) return page;
    const cutoff = adminClock(deps).now() - valid.olderThanMs;
    const old = page.items.filter((item) => typeof item.parkedAt === 'number' && item.parkedAt <= cutoff);
    // The index is ordered by parkedAt: once one item is too young, every later one is too.
    return old.length < page.items.length ? { items: old } : page;
  }
  if (state === WorkState.claimed || state === WorkState.queued) {
    return listActive(deps.store, {
      state,
      limit: valid.limit,
      now: adminClock(deps).now(),
      ...tenant,
      ...cursor,
      ...(valid.olderThanMs !== undefined ? { olderThanMs: valid.olderThanMs } : {}),
    });
  }
  return listTenantItems(deps, {
    tenantId: valid.tenantId as string,
    limit: valid.limit,
    ...cursor,
    ...(state ? { state } : {}),
  });
}

export { type ListItemsInput, type ListParkedInput, listItems, listParked, type ParkedPage };
