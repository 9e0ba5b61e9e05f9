import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeShardPages, type ShardPage, type ShardPosition } from '../../../lib/admin/shard-merge.js';

/** An item: a time with many ties, and a unique id that breaks them (like parkedAt and the table key). */
interface Item {
  at: number;
  id: number;
}

const order = (a: Item, b: Item) => a.at - b.at || a.id - b.id;

/**
 * A shard as the engine serves it: sorted, read from a position with a Limit, and sometimes a shorter page
 * (DynamoDB's 1 MB cap) that still says there is more. A key is the index of the last item read.
 */
function readShard(shard: readonly Item[], position: ShardPosition<number>, limit: number, cap: number) {
  const from = position.at === 'after' ? position.key + 1 : 0;
  const items = shard.slice(from, from + Math.min(limit, cap));
  const more = from + items.length < shard.length;
  return { items, ...(more ? { next: from + items.length - 1 } : {}) } satisfies ShardPage<Item, number>;
}

/** Pages through `shards` to the end; every page but the last must hold an item (no empty page loops). */
function pageThrough(shards: readonly Item[][], limit: number, caps: readonly number[]): Item[][] {
  const placeInShard = new Map(shards.flatMap((shard) => shard.map((item, place) => [item, place] as const)));
  let positions: ShardPosition<number>[] = shards.map(() => ({ at: 'start' }));
  const pages: Item[][] = [];
  for (let call = 0; positions.some((position) => position.at !== 'done'); call += 1) {
    const reads = shards.map((shard, index) => {
      const position = positions[index] as ShardPosition<number>;
      const cap = caps[(call * shards.length + index) % caps.length] as number;
      return position.at === 'done' ? undefined : readShard(shard, position, limit, cap);
    });
    const merged = mergeShardPages(positions, reads, limit, order, (item) => placeInShard.get(item) as number);
    positions = merged.positions;
    pages.push(merged.items);
    if (pages.length > placeInShard.size + 1) throw new Error('the listing does not end');
  }
  return pages;
}

describe('k-way merge of sharded parked pages', () => {
  it('any split of sorted items into shards and any page size gives the global order, nothing lost or repeated', () => {
    const case_ = fc.record({
      times: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 80 }),
      shardCount: fc.integer({ min: 1, max: 16 }),
      assignment: fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
      limit: fc.integer({ min: 1, max: 10 }),
      caps: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 8 }),
    });
    fc.assert(
      fc.property(case_, ({ times, shardCount, assignment, limit, caps }) => {
        const items = times.map((at, id) => ({ at, id }));
        const shards: Item[][] = Array.from({ length: shardCount }, () => []);
        for (const item of items) shards[(assignment[item.id] as number) % shardCount]?.push(item);
        for (const shard of shards) shard.sort(order);

        const pages = pageThrough(shards, limit, caps);

        expect(pages.flat()).toEqual([...items].sort(order));
        for (const page of pages.slice(0, -1)) expect(page.length).toBeGreaterThan(0);
        for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the time order and loses nothing when a shard orders equal times its own way (GSI ties)', () => {
    const case_ = fc.record({
      times: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 60 }),
      shardCount: fc.integer({ min: 1, max: 16 }),
      assignment: fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
      tieOrder: fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
      limit: fc.integer({ min: 1, max: 7 }),
      caps: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 8 }),
    });
    fc.assert(
      fc.property(case_, ({ times, shardCount, assignment, tieOrder, limit, caps }) => {
        const items = times.map((at, id) => ({ at, id }));
        const shards: Item[][] = Array.from({ length: shardCount }, () => []);
        for (const item of items) shards[(assignment[item.id] as number) % shardCount]?.push(item);
        const engineOrder = (a: Item, b: Item) =>
          a.at - b.at || (tieOrder[a.id] as number) - (tieOrder[b.id] as number);
        for (const shard of shards) shard.sort(engineOrder);

        const listed = pageThrough(shards, limit, caps).flat();

        expect(listed.map((item) => item.at)).toEqual([...times].sort((a, b) => a - b));
        expect(listed.map((item) => item.id).sort((a, b) => a - b)).toEqual(items.map((item) => item.id));
      }),
      { numRuns: 300 },
    );
  });

  it('fills a page to the limit when every shard returns full pages', () => {
    const shards = [
      [
        { at: 1, id: 0 },
        { at: 4, id: 1 },
      ],
      [
        { at: 2, id: 2 },
        { at: 3, id: 3 },
      ],
    ];
    const positions: ShardPosition<number>[] = [{ at: 'start' }, { at: 'start' }];
    const merged = mergeShardPages(
      positions,
      shards.map((shard) => ({ items: shard.slice(0, 3) })),
      3,
      order,
      (item) => item.id,
    );

    expect(merged.items.map((item) => item.id)).toEqual([0, 2, 3]);
    expect(merged.positions).toEqual([{ at: 'after', key: 0 }, { at: 'done' }]);
  });

  it('stops at a short page that has more, and keeps an untouched shard where it was', () => {
    const merged = mergeShardPages<Item, number>(
      [{ at: 'start' }, { at: 'after', key: 9 }],
      [{ items: [{ at: 1, id: 0 }], next: 0 }, { items: [{ at: 5, id: 1 }] }],
      3,
      order,
      (item) => item.id,
    );

    expect(merged.items).toEqual([{ at: 1, id: 0 }]);
    expect(merged.positions).toEqual([
      { at: 'after', key: 0 },
      { at: 'after', key: 9 },
    ]);
  });

  it('leaves a done shard done without reading it', () => {
    const merged = mergeShardPages<Item, number>([{ at: 'done' }], [undefined], 5, order, (item) => item.id);
    expect(merged).toEqual({ items: [], positions: [{ at: 'done' }] });
  });
});
