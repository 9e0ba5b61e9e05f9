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
 * mine[i] ÷ theirs[i] for every pair of samples taken in the same round of a round-robin. Undefined when there is
 * no pair or a peer sample is not positive.
 */
function pairedRatios(mine: readonly number[], theirs: readonly number[]): number[] | undefined {
  const pairs = Math.min(mine.length, theirs.length);
  if (pairs === 0) return undefined;
  const ratios: number[] = [];
  for (let index = 0; index < pairs; index += 1) {
    const peer = theirs[index] as number;
    if (!(peer > 0)) return undefined;
    ratios.push((mine[index] as number) / peer);
  }
  return ratios;
}

/**
 * The median over runs of mine[i] ÷ theirs[i] (pairedRatios): a drift in the machine's load moves both sides of a
 * pair alike, where a ratio of two medians takes it whole. Undefined as pairedRatios.
 */
function pairedRatio(mine: readonly number[], theirs: readonly number[]): number | undefined {
  const ratios = pairedRatios(mine, theirs);
  return ratios === undefined ? undefined : median(ratios);
}

/** A range a statistic lies in, with the stated confidence. */
interface Interval {
  low: number;
  high: number;
}

/**
 * A distribution-free 95 % confidence interval of the median of `values`: the order statistics n/2 ∓ 1.96·√n/2
 * (the binomial's normal approximation), so no assumption on the samples' distribution. Too few samples for that
 * (n < 6) give the whole range, min to max: wider, never narrower. NaN bounds when empty.
 */
function medianInterval(values: readonly number[]): Interval {
  if (values.length === 0) return { low: Number.NaN, high: Number.NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const k = Math.max(0, Math.floor((n - 1.96 * Math.sqrt(n)) / 2));
  return { low: sorted[k] as number, high: sorted[n - 1 - k] as number };
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

export { type Interval, median, medianInterval, nowMs, pairedRatio, pairedRatios, percentile, slope };
