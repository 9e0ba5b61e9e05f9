/** Small, dependency-free statistics for benchmark samples. */

/** The median of `values` (mean of the two middle values for an even count); NaN when empty. */
function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The nearest-rank percentile `p` (0–100) of `values`; NaN when empty. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/**
 * The median over runs of mine[i] ÷ theirs[i], for samples taken in pairs (the same round of a round-robin): a
 * drift in the machine's load moves both sides of a pair alike, where a ratio of two medians takes it whole.
 * Undefined when there is no pair or a peer sample is not positive.
 */
function pairedRatio(mine: readonly number[], theirs: readonly number[]): number | undefined {
  const pairs = Math.min(mine.length, theirs.length);
  if (pairs === 0) return undefined;
  const ratios: number[] = [];
  for (let index = 0; index < pairs; index += 1) {
    const peer = theirs[index] as number;
    if (!(peer > 0)) return undefined;
    ratios.push((mine[index] as number) / peer);
  }
  return median(ratios);
}

/** Least-squares slope of y over x (units of y per unit of x); 0 for fewer than two points. */
function slope(points: ReadonlyArray<{ x: number; y: number }>): number {
  if (points.length < 2) return 0;
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
  let numerator = 0;
  let denominator = 0;
  for (const point of points) {
    numerator += (point.x - meanX) * (point.y - meanY);
    denominator += (point.x - meanX) ** 2;
  }
  return denominator === 0 ? 0 : numerator / denominator;
}

/** Milliseconds since an arbitrary origin, with sub-millisecond resolution. */
function nowMs(): number {
  return performance.now();
}

export { median, nowMs, pairedRatio, percentile, slope };
