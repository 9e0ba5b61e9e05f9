import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutPage, FILTERED_READ_AHEAD, type Key, rowsToEvaluate } from '../../../lib/admin/filtered-page.js';

interface Row extends Key {
  pk: string;
  sk: string;
  match: boolean;
}

const KEY_ATTRIBUTES = ['pk', 'sk'];

/**
 * One partition as DynamoDB serves a filtered Query: evaluates `limit` rows after the exclusive start key (in
 * sort key order), returns those matching the filter, and the last evaluated key when rows remain after it.
 */
function query(partition: readonly Row[], limit: number, startKey: Key | undefined) {
  const from = startKey ? partition.findIndex((row) => row.sk === startKey.sk) + 1 : 0;
  const evaluated = partition.slice(from, from + limit);
  const last = evaluated.at(-1);
  const more = from + evaluated.length < partition.length;
  return {
    items: evaluated.filter((row) => row.match),
    lastEvaluatedKey: more && last ? { pk: last.pk, sk: last.sk } : undefined,
  };
}

const partitionArbitrary = fc
  .array(fc.boolean(), { maxLength: 300 })
  .map((matches) =>
    matches.map((match, index): Row => ({ pk: 'tenant#3', sk: `w#${String(index).padStart(4, '0')}`, match })),
  );

describe('cutPage and rowsToEvaluate: pages of a filtered Query', () => {
  it('reading page after page returns every matching row once, in order, each page at most the page size', () => {
    fc.assert(
      fc.property(partitionArbitrary, fc.integer({ min: 1, max: 120 }), (partition, pageSize) => {
        const seen: Row[] = [];
        let key: Key | undefined;
        for (let reads = 0; reads < 1000; reads += 1) {
          const output = query(partition, rowsToEvaluate(pageSize, true), key);
          const page = cutPage(output.items, pageSize, output.lastEvaluatedKey, KEY_ATTRIBUTES);
          expect(page.rows.length).toBeLessThanOrEqual(pageSize);
          seen.push(...page.rows);
          key = page.next;
          if (!key) break;
        }
        expect(seen).toEqual(partition.filter((row) => row.match));
      }),
    );
  });

  it('a cut page continues after its last row, keeping only the key attributes', () => {
    const rows: Row[] = [1, 2, 3].map((index) => ({ pk: 'p', sk: `s${index}`, match: true }));

    const page = cutPage(rows, 2, { pk: 'p', sk: 's9' }, KEY_ATTRIBUTES);

    expect(page.rows.map((row) => row.sk)).toEqual(['s1', 's2']);
    expect(page.next).toEqual({ pk: 'p', sk: 's2' });
  });

  it('an uncut page continues where the engine stopped, or nowhere when the partition is read to its end', () => {
    const rows: Row[] = [{ pk: 'p', sk: 's1', match: true }];

    expect(cutPage(rows, 2, { pk: 'p', sk: 's5' }, KEY_ATTRIBUTES).next).toEqual({ pk: 'p', sk: 's5' });
    expect(cutPage(rows, 2, undefined, KEY_ATTRIBUTES)).toEqual({ rows });
  });

  it('reads ahead only under a filter: an unfiltered Query evaluates exactly the rows still wanted', () => {
    expect(rowsToEvaluate(3, false)).toBe(3);
    expect(rowsToEvaluate(3, true)).toBe(FILTERED_READ_AHEAD);
    expect(rowsToEvaluate(FILTERED_READ_AHEAD + 20, true)).toBe(FILTERED_READ_AHEAD + 20);
  });
});
