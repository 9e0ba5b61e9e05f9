/**
 * The figures a reliability run reports; invariant violations, lost jobs, duplicate effects and illegal steps must
 * stay 0. The replay figures: job histories replayed through the model's step relation (model/transitions.json),
 * the steps checked, and the steps the model cannot take.
 */
interface ReliabilityCounts {
  faultsInjected: number;
  interleavings: number;
  badInputs: number;
  invariantViolations: number;
  lostJobs: number;
  duplicateEffects: number;
  historiesReplayed: number;
  stepsReplayed: number;
  illegalSteps: number;
}

/** The model replay's part of a line: not evaluated (never 0) when no history was replayed. */
function replayFigures(counts: ReliabilityCounts): string {
  if (counts.historiesReplayed === 0) return 'model replay not evaluated (no history recorded)';
  return (
    `model replay: ${counts.historiesReplayed} histories, ${counts.stepsReplayed} steps checked, ` +
    `illegal steps ${counts.illegalSteps}`
  );
}

/** The summary line, in the one format the suite and `npm run test:chaos` print. */
function summaryLine(counts: ReliabilityCounts): string {
  return (
    `faults injected ${counts.faultsInjected}, interleavings ${counts.interleavings}, bad inputs ${counts.badInputs}, ` +
    `invariant violations ${counts.invariantViolations}, lost jobs ${counts.lostJobs}, duplicate effects ${counts.duplicateEffects}; ` +
    replayFigures(counts)
  );
}

/** The safety figures: a line may only claim they are 0 when every reliability test passed. */
const SAFETY_FIGURES = [
  ['invariantViolations', 'invariant violations'],
  ['lostJobs', 'lost jobs'],
  ['duplicateEffects', 'duplicate effects'],
  ['illegalSteps', 'illegal model steps'],
] as const;

/** Failed tests named in a verdict line; the rest are counted. */
const NAMED_FAILURES = 5;

/**
 * The verdict line: the summary line when no test failed; otherwise `FAILED: n failed tests (…)` with the
 * activity figures, and safety figures only where they are above 0 (a failed run cannot vouch for a 0: its
 * tallies may never have run).
 */
function verdictLine(counts: ReliabilityCounts, failures: readonly string[]): string {
  if (failures.length === 0) return summaryLine(counts);
  const named = failures.slice(0, NAMED_FAILURES).join('; ');
  const more = failures.length > NAMED_FAILURES ? `; and ${failures.length - NAMED_FAILURES} more` : '';
  const counted = SAFETY_FIGURES.filter(([figure]) => counts[figure] > 0).map(
    ([figure, label]) => `${label} ${counts[figure]}`,
  );
  return (
    `FAILED: ${failures.length} failed ${failures.length === 1 ? 'test' : 'tests'} (${named}${more}); ` +
    `faults injected ${counts.faultsInjected}, interleavings ${counts.interleavings}, bad inputs ${counts.badInputs}; ` +
    (counted.length > 0 ? `${counted.join(', ')} at least` : 'safety figures not established')
  );
}

/** A zeroed set of counts. */
function emptyCounts(): ReliabilityCounts {
  return {
    faultsInjected: 0,
    interleavings: 0,
    badInputs: 0,
    invariantViolations: 0,
    lostJobs: 0,
    duplicateEffects: 0,
    historiesReplayed: 0,
    stepsReplayed: 0,
    illegalSteps: 0,
  };
}

export { emptyCounts, type ReliabilityCounts, summaryLine, verdictLine };
