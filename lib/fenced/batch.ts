import { BatchIncompleteError, BusinessConditionError, FenceRejectedError, isLeasefenceError } from '../errors.js';
import type { RecordRef } from './record-requests.js';

/** The per-record outcome of a fenced batch: nothing is left unaccounted for. */
interface FencedBatchReport {
  /** True only when every record was written (or shown already written by this claim). */
  readonly complete: boolean;
  readonly written: RecordRef[];
  /** Written by this claim before (a retried write recognised by its token). */
  readonly alreadyApplied: RecordRef[];
  /** Refused by the fence; after the first one no further write starts. */
  readonly fenced: Array<{ ref: RecordRef; error: FenceRejectedError }>;
  readonly businessRejected: Array<{ ref: RecordRef; error: BusinessConditionError }>;
  /** Any other error (throttling, network): not known to be written. */
  readonly failed: Array<{ ref: RecordRef; error: unknown }>;
  /** Never sent, because the batch stopped at a fence rejection. */
  readonly notAttempted: RecordRef[];
}

/** One write of the batch; resolves to whether it was new or already applied, or throws. */
type BatchWrite = () => Promise<{ status: 'written' | 'already_applied' }>;

/**
 * Runs the writes with bounded concurrency and sorts every record into exactly one bucket. A fence rejection
 * stops new writes from starting (the batch belongs to a superseded claim); writes already in flight finish.
 */
async function runFencedBatch(
  entries: ReadonlyArray<{ ref: RecordRef; write: BatchWrite }>,
  concurrency: number,
): Promise<FencedBatchReport> {
  const report: FencedBatchReport = {
    complete: false,
    written: [],
    alreadyApplied: [],
    fenced: [],
    businessRejected: [],
    failed: [],
    notAttempted: [],
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < entries.length) {
      const entry = entries[next++];
      if (entry === undefined) return;
      if (report.fenced.length > 0) {
        report.notAttempted.push(entry.ref);
        continue;
      }
      try {
        const result = await entry.write();
        (result.status === 'written' ? report.written : report.alreadyApplied).push(entry.ref);
      } catch (error) {
        if (isLeasefenceError(error, FenceRejectedError)) report.fenced.push({ ref: entry.ref, error });
        else if (isLeasefenceError(error, BusinessConditionError))
          report.businessRejected.push({ ref: entry.ref, error });
        else report.failed.push({ ref: entry.ref, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, entries.length)) }, lane));
  const done = report.written.length + report.alreadyApplied.length;
  return { ...report, complete: done === entries.length };
}

/** The error an incomplete batch throws: fence first (stop the job), then business, then anything else. */
function incompleteBatchError(
  report: FencedBatchReport,
): FenceRejectedError | BusinessConditionError | BatchIncompleteError {
  const counts = `${report.written.length + report.alreadyApplied.length} written, ${report.fenced.length} fenced, ${report.businessRejected.length} refused by condition, ${report.failed.length} failed, ${report.notAttempted.length} not attempted`;
  const firstFenced = report.fenced[0];
  if (firstFenced) {
    // The first refusal's verdict (reason, superseded, …) carries over: the worker reads it to end the attempt.
    const { tableName, rule, reason, superseded, fence, seq, recordEpoch, recordSeq } = firstFenced.error;
    return new FenceRejectedError(`fenced batch stopped: ${counts}`, firstFenced.error.current, {
      cause: firstFenced.error,
      tableName,
      rule,
      reason,
      superseded,
      fence,
      seq,
      recordEpoch,
      recordSeq,
      report,
    });
  }
  const firstRefused = report.businessRejected[0];
  if (firstRefused) {
    return new BusinessConditionError(`fenced batch incomplete: ${counts}`, firstRefused.error.current, {
      cause: firstRefused.error,
      report,
    });
  }
  return new BatchIncompleteError(`fenced batch incomplete: ${counts}`, {
    cause: report.failed[0]?.error,
    report,
  });
}

export { type BatchWrite, type FencedBatchReport, incompleteBatchError, runFencedBatch };
