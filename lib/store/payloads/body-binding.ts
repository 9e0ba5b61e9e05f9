import { FINISHED_STATES } from '../../states.js';
import type { WorkItem } from '../work-items/work-item.js';

/**
 * The one rule for "this row is bound to this inline body and may still need it": the row names an inline payload
 * with this hash, this job type, and has not finished. Only then is a body stored for it once its row exists (a
 * carried body after its row; a successor's body after its row): a row of another job, or one bound by payloadRef,
 * never gets a body, so a refused write leaves the payloads table as it was.
 */
function rowAwaitsBody(
  row: Pick<WorkItem, 'payloadInline' | 'payloadHash' | 'jobType' | 'state'>,
  job: { readonly jobType: string; readonly payloadHash: string },
): boolean {
  return (
    row.payloadInline === true &&
    row.payloadHash === job.payloadHash &&
    row.jobType === job.jobType &&
    !FINISHED_STATES.includes(row.state)
  );
}

export { rowAwaitsBody };
