/** Where a listing stands in one shard: not started, continue after `key`, or read to its end. */
type ShardPosition<K> = { at: 'start' } | { at: 'after'; key: K } | { at: 'done' };

/** One page read from a shard at its position, in the shard's order; `next` when the shard has more after it. */
interface ShardPage<T, K> {
  items: readonly T[];
  next?: K;
}

/** A merged page and where each shard stands after it. */
interface MergedPage<T, K> {
  items: T[];
  positions: ShardPosition<K>[];
}

/**
 * K-way merge of one page per shard into the first `limit` items in `order`, and each shard's new position.
 * `pages[i]` is the page read at `positions[i]` (absent only for a done shard), in its shard's order. Guarantees:
 * no item is skipped or repeated across calls; the output is in `order` across calls when every shard is, and in
 * any coarser order the shards keep (parkedAt when an index orders equal times its own way). When a
 * shard's page runs out while the shard has more (a short page), the merge stops there, since that shard's next
 * item may sort before anything left: the page is then shorter than `limit`, never wrong.
 */
function mergeShardPages<T, K>(
  positions: readonly ShardPosition<K>[],
  pages: readonly (ShardPage<T, K> | undefined)[],
  limit: number,
  order: (a: T, b: T) => number,
  keyOf: (item: T) => K,
): MergedPage<T, K> {
  const heads = pages.map(() => 0);
  const items: T[] = [];
  while (items.length < limit) {
    let best: number | undefined;
    let blocked = false;
    pages.forEach((page, shard) => {
      if (!page) return;
      const head = page.items[heads[shard] as number];
      if (head === undefined) {
        blocked ||= page.next !== undefined;
        return;
      }
      if (best === undefined || order(head, (pages[best] as ShardPage<T, K>).items[heads[best] as number] as T) < 0) {
        best = shard;
      }
    });
    if (blocked || best === undefined) break;
    items.push((pages[best] as ShardPage<T, K>).items[heads[best] as number] as T);
    heads[best] = (heads[best] as number) + 1;
  }
  const after = (position: ShardPosition<K>, shard: number): ShardPosition<K> => {
    const page = pages[shard];
    const consumed = heads[shard] ?? 0;
    if (!page) return position;
    // Read to the end of the page: continue where the engine stopped (also when it returned no item at all).
    if (consumed === page.items.length)
      return page.next === undefined ? { at: 'done' } : { at: 'after', key: page.next };
    return consumed > 0 ? { at: 'after', key: keyOf(page.items[consumed - 1] as T) } : position;
  };
  return { items, positions: positions.map(after) };
}

export { type MergedPage, mergeShardPages, type ShardPage, type ShardPosition };
