import type { JobIdentity } from '../identity.js';
import { MAX_SHADOW_EXECUTIONS, type ShadowRead } from '../store/index.js';
import { findingsOf, ShadowFinding } from './findings.js';

/** Examples kept per job type and finding. */
const EXAMPLES_PER_FINDING = 5;

/** One job type's part of the report. */
interface JobTypeShadowReport {
  jobType: string;
  operations: number;
  executions: number;
  /** Operations per finding (an operation can have several findings). */
  counts: Record<ShadowFinding, number>;
  /** Up to EXAMPLES_PER_FINDING identities per finding. */
  examples: Record<ShadowFinding, JobIdentity[]>;
  /** Operations with a pair of executions whose overlap could not be decided (an end never recorded). */
  undetermined: number;
  /** Operations whose execution list is full: later executions were refused a record, so they were never seen. */
  listFull: number;
  /** Up to EXAMPLES_PER_FINDING identities not fully seen (a full list or an undecided pair). */
  notEvaluatedExamples: JobIdentity[];
  /** Operations with at least one finding: the double-runs leasefence would have prevented. */
  doubleRuns: number;
}

/** The verdict: findings (a lower bound when not everything was read), none recorded, or not evaluated. */
type ShadowVerdict = 'findings' | 'none_recorded' | 'not_evaluated';

/** What `leasefence shadow report` prints: per job type, and why the verdict is what it is. */
interface ShadowReport {
  verdict: ShadowVerdict;
  /** Why the result is not a complete view (empty when it is). */
  notEvaluated: string[];
  operations: number;
  executions: number;
  doubleRuns: number;
  jobTypes: JobTypeShadowReport[];
}

function emptyCounts<T>(make: () => T): Record<ShadowFinding, T> {
  return Object.fromEntries(Object.values(ShadowFinding).map((finding) => [finding, make()])) as Record<
    ShadowFinding,
    T
  >;
}

function emptyJobType(jobType: string): JobTypeShadowReport {
  return {
    jobType,
    operations: 0,
    executions: 0,
    counts: emptyCounts(() => 0),
    examples: emptyCounts((): JobIdentity[] => []),
    undetermined: 0,
    listFull: 0,
    notEvaluatedExamples: [],
    doubleRuns: 0,
  };
}

/** Why a read of the shadow rows is not the whole picture. */
function gapsOf(read: ShadowRead, undetermined: number, listFull: number): string[] {
  const gaps: string[] = [];
  if (!read.complete) gaps.push('the read stopped before the end of the table (page bound): rows were not read');
  if (read.unreadable > 0) gaps.push(`${read.unreadable} shadow rows could not be parsed`);
  if ((read.erased ?? 0) > 0)
    gaps.push(`${read.erased} executions were erased with their tenant's data (erase-payloads): not evaluated`);
  if (undetermined > 0)
    gaps.push(
      `${undetermined} operations have an execution with no recorded end (crash, timeout or a failed shadow write) followed by another: overlap unknown`,
    );
  if (listFull > 0)
    gaps.push(
      `${listFull} operations reached the cap of ${MAX_SHADOW_EXECUTIONS} recorded executions: later executions were refused a record, so a double-run among them would not show`,
    );
  return gaps;
}

/**
 * Builds the report from every shadow row read. Never "none recorded" unless every row was read and parsed, no
 * identity's execution list was full and every pair of executions was decided; findings are always reported (a lower bound when the read was partial).
 */
function buildShadowReport(read: ShadowRead): ShadowReport {
  const byType = new Map<string, JobTypeShadowReport>();
  for (const row of read.rows) {
    const entry = byType.get(row.jobType) ?? emptyJobType(row.jobType);
    byType.set(row.jobType, entry);
    entry.operations += 1;
    entry.executions += row.executions.length;
    const { findings, undetermined } = findingsOf(row.executions);
    if (undetermined) entry.undetermined += 1;
    if (row.full) entry.listFull += 1;
    if ((undetermined || row.full) && entry.notEvaluatedExamples.length < EXAMPLES_PER_FINDING)
      entry.notEvaluatedExamples.push({ tenantId: row.tenantId, operationId: row.operationId });
    if (findings.size > 0) entry.doubleRuns += 1;
    for (const finding of findings) {
      entry.counts[finding] += 1;
      const examples = entry.examples[finding];
      if (examples.length < EXAMPLES_PER_FINDING)
        examples.push({ tenantId: row.tenantId, operationId: row.operationId });
    }
  }
  const jobTypes = [...byType.values()].sort((a, b) => a.jobType.localeCompare(b.jobType));
  const sum = (pick: (entry: JobTypeShadowReport) => number) => jobTypes.reduce((total, e) => total + pick(e), 0);
  const doubleRuns = sum((entry) => entry.doubleRuns);
  const notEvaluated = gapsOf(
    read,
    sum((entry) => entry.undetermined),
    sum((entry) => entry.listFull),
  );
  return {
    verdict: doubleRuns > 0 ? 'findings' : notEvaluated.length > 0 ? 'not_evaluated' : 'none_recorded',
    notEvaluated,
    operations: sum((entry) => entry.operations),
    executions: sum((entry) => entry.executions),
    doubleRuns,
    jobTypes,
  };
}

export { buildShadowReport, type JobTypeShadowReport, type ShadowReport, type ShadowVerdict };
