/** Edit distance (insertions, deletions, substitutions) between two short names. Pure. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known name closest to `name` by edit distance, when it is close enough to be a typo (at most a third of the
 * longer name's length, and at least 1 edit); undefined when none is. Ties go to the first in `known`.
 */
function closestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.max(1, Math.floor(Math.max(name.length, best.name.length) / 3)) ? best.name : undefined;
}

export { closestName };
