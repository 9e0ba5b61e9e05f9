import type { WorkState } from '../states.js';
import { KeyPrefix, TableKeys, tenantPartitionKeys } from '../store/index.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { AdminDeps } from './deps.js';
import { cutPage, type Key, rowsToEvaluate } from './filtered-page.js';
import { type RecordView, recordView } from './views.js';

/** One tenant's work items, in any state or one state, a page size and where to continue. */
interface TenantListInput {
  tenantId: string;
  state?: WorkState;
  limit: number;
  cursor?: string;
}

/** Queries per call at most (a state filter can leave a page short or empty); the cursor continues from there. */
const MAX_QUERIES = 20;

/**
 * Lists one tenant's work items (every state: succeeded and cancelled too) with a Query on each of the tenant's
 * partition keys (tenantPartitionKeys), never a Scan; ordered by partition, then operation id. A state is a
 * filter: the read costs what the tenant's items cost, not the page. A page can be shorter than `limit` (even
 * empty) while a cursor is returned: keep reading until there is none. A bad cursor ▶ InvalidInputError.
 */
async function listTenantItems(
  deps: AdminDeps,
  input: TenantListInput,
): Promise<{ items: RecordView[]; cursor?: string }> {
  const partitions = tenantPartitionKeys(input.tenantId);
  const scope = `tenant:${input.tenantId}:${input.state ?? '*'}`;
  const start = decodeCursor(scope, input.cursor, [TableKeys.partition, TableKeys.sort]);
  let partition = start === undefined ? 0 : partitions.indexOf(String(start[TableKeys.partition]));
  if (partition < 0) partition = partitions.length; // a cursor of another key layout: nothing left to read
  // A cursor at the bare prefix means "from the start of that partition" (see below).
  let key: Key | undefined = start?.[TableKeys.sort] === KeyPrefix.workItem ? undefined : start;
  const items: RecordView[] = [];
  for (let queries = 0; queries < MAX_QUERIES && partition < partitions.length && items.length < input.limit; ) {
    queries += 1;
    const wanted = input.limit - items.length;
    const evaluate = rowsToEvaluate(wanted, input.state !== undefined);
    const read = await deps.store.tenants.page(partitions[partition] as string, {
      limit: evaluate,
      ...(input.state ? { state: input.state } : {}),
      ...(key ? { startKey: key } : {}),
    });
    const page = cutPage(read.items, wanted, read.next, [TableKeys.partition, TableKeys.sort]);
    items.push(...page.rows.map(recordView));
    key = page.next;
    if (!key) partition += 1;
  }
  const next = key ?? { [TableKeys.partition]: partitions[partition], [TableKeys.sort]: KeyPrefix.workItem };
  const cursor = partition < partitions.length ? encodeCursor(scope, next) : undefined;
  return { items, ...(cursor ? { cursor } : {}) };
}

export { listTenantItems, type TenantListInput };
