/**
 * Memoises a pure function of a string, holding at most `size` results (the cache starts over when full):
 * for values that recur on every job, such as expression placeholders of the same attribute names.
 */
function memoizeBounded<T>(compute: (input: string) => T, size: number): (input: string) => T {
  const cache = new Map<string, T>();
  return (input) => {
    const hit = cache.get(input);
    if (hit !== undefined) return hit;
    const value = compute(input);
    if (cache.size >= size) cache.clear();
    cache.set(input, value);
    return value;
  };
}

export { memoizeBounded };
