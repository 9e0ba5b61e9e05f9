import type { ShadowExecution } from '../store/index.js';

/**
 * What shadow mode finds in one identity's executions: the double-runs the existing mechanism let through and
 * leasefence would have prevented (a live claim refuses a second holder, a stale holder's writes are fenced off,
 * a completed identity is a replay, a different payload hash is a conflict). Pure.
 */
const ShadowFinding = {
  /** Two or more executions succeeded: the effect landed more than once. */
  ranTwice: 'ran_twice',
  /** An execution started while an earlier one was still running (or held a live lease and never ended). */
  concurrent: 'concurrent',
  /** An execution started after an earlier one had succeeded, same payload: a replay not recognised. */
  afterCompletion: 'after_completion',
  /** Executions of one identity ran different payloads (hashes): a conflict let through. */
  payloadConflict: 'payload_conflict',
} as const;

/** One finding kind. */
type ShadowFinding = (typeof ShadowFinding)[keyof typeof ShadowFinding];

/** The findings of one identity, and whether some of its pairs could not be decided. */
interface IdentityFindings {
  findings: Set<ShadowFinding>;
  /**
   * An execution never recorded its end (crash, timeout, or a failed shadow write) and a later one started after
   * its lease: whether the two overlapped is unknown. Never counted as clean.
   */
  undetermined: boolean;
}

/** How `later` (started after `earlier`, by fence) relates to `earlier`. */
function comparePair(earlier: ShadowExecution, later: ShadowExecution, into: IdentityFindings): void {
  if (earlier.h !== later.h) into.findings.add(ShadowFinding.payloadConflict);
  if (earlier.e === undefined) {
    if (later.s < earlier.l) into.findings.add(ShadowFinding.concurrent);
    else into.undetermined = true;
    return;
  }
  if (later.s < earlier.e) into.findings.add(ShadowFinding.concurrent);
  else if (earlier.o === 'succeeded' && earlier.h === later.h) into.findings.add(ShadowFinding.afterCompletion);
}

/** The findings of one identity's executions (in fence order). */
function findingsOf(executions: readonly ShadowExecution[]): IdentityFindings {
  const result: IdentityFindings = { findings: new Set(), undetermined: false };
  for (let later = 1; later < executions.length; later += 1) {
    for (let earlier = 0; earlier < later; earlier += 1) {
      comparePair(executions[earlier] as ShadowExecution, executions[later] as ShadowExecution, result);
    }
  }
  if (executions.filter((execution) => execution.o === 'succeeded').length > 1) {
    result.findings.add(ShadowFinding.ranTwice);
  }
  return result;
}

export { findingsOf, type IdentityFindings, ShadowFinding };
