/** A DynamoDB key as a listing carries it between Queries (strings and numbers). */
type Key = Record<string, unknown>;

/**
 * Rows a filtered Query evaluates at least. With Limit = the few matches still wanted, every Query would read a
 * handful of rows, and a listing over many partitions or shards would use up its Query budget before a page
 * fills (a short or empty page). Reading ahead costs a little more RCU (rows are small); cutPage then ends the
 * page on its last returned row, so nothing is skipped.
 */
const FILTERED_READ_AHEAD = 100;

/** Limit of the next Query of a listing: exactly `wanted` without a filter, at least FILTERED_READ_AHEAD with one. */
function rowsToEvaluate(wanted: number, filtered: boolean): number {
  return filtered ? Math.max(wanted, FILTERED_READ_AHEAD) : wanted;
}

/**
 * The first `wanted` rows of a Query and where the listing continues: after the last row kept when rows were
 * cut off (its `keyAttributes`), else the Query's LastEvaluatedKey (none: the partition is read to its end).
 */
function cutPage<Row extends Key>(
  rows: readonly Row[],
  wanted: number,
  lastEvaluatedKey: Key | undefined,
  keyAttributes: readonly string[],
): { rows: Row[]; next?: Key } {
  if (rows.length <= wanted) return { rows: [...rows], ...(lastEvaluatedKey ? { next: lastEvaluatedKey } : {}) };
  const kept = rows.slice(0, wanted);
  const last = kept[kept.length - 1] as Row;
  return { rows: kept, next: Object.fromEntries(keyAttributes.map((attribute) => [attribute, last[attribute]])) };
}

export { cutPage, FILTERED_READ_AHEAD, type Key, rowsToEvaluate };
