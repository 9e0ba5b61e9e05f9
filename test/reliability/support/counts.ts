/** The figures a reliability run reports; every one but the first three must stay 0. */
interface ReliabilityCounts {
  faultsInjected: number;
  interleavings: number;
  badInputs: number;
  invariantViolations: number;
  lostJobs: number;
  duplicateEffects: number;
}

/** The summary line, in the one format the suite and `npm run test:chaos` print. */
function summaryLine(counts: ReliabilityCounts): string {
  return (
    `faults injected ${counts.faultsInjected}, interleavings ${counts.interleavings}, bad inputs ${counts.badInputs}, ` +
    `invariant violations ${counts.invariantViolations}, lost jobs ${counts.lostJobs}, duplicate effects ${counts.duplicateEffects}`
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
  };
}

export { emptyCounts, type ReliabilityCounts, summaryLine };
