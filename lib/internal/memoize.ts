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

/**
 * A value built by its first caller, then the same one for every later call: for a schema a hot path parses on
 * every job, built on first use and not at import, yet with no z.lazy wrapper to pass through on each parse (that
 * costs a call per parse; test/bench/README.md, "Cold start"). A build that throws is retried by the next call.
 */
function builtOnce<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    if (built === undefined) built = build();
    return built;
  };
}

export { builtOnce, memoizeBounded };
