import type { ValidIdentity } from '../../identity.js';
import { loadOnFirstUse } from '../../internal/first-use.js';
import type { StoreConnection } from '../driver/connection.js';
import type { ApprovalOpening, ApprovalRecord, ApprovalRecords } from './approval-records.js';

// Pay for what you use (lib/internal/first-use.ts): the approval records load with the first gated job.
const approvalRecords = loadOnFirstUse(() => import('./approval-records.js'));

/** What the worker reaches of approvals: open a record and read one (approval-records.ts), never a decision. */
type WorkerApprovalRecords = Pick<ApprovalRecords, 'open' | 'read'>;

/**
 * The worker's approval records, the module loaded by the first call (a worker whose jobs gate nothing never loads
 * it): the same writes and reads as ApprovalRecords, with its guarantees and errors (a failed load rejects the call).
 */
class ApprovalRecordsOnFirstUse implements WorkerApprovalRecords {
  private records: ApprovalRecords | undefined;

  constructor(private readonly db: StoreConnection) {}

  /** ApprovalRecords.open: opens the record of a gated job, once; an existing record is returned as stored. */
  async open(identity: ValidIdentity, opening: ApprovalOpening, retentionMs?: number): Promise<ApprovalRecord> {
    return (await this.loaded()).open(identity, opening, retentionMs);
  }

  /** ApprovalRecords.read: the record as stored (one consistent read), or undefined. */
  async read(identity: ValidIdentity): Promise<ApprovalRecord | undefined> {
    return (await this.loaded()).read(identity);
  }

  private async loaded(): Promise<ApprovalRecords> {
    this.records ??= new (await approvalRecords()).ApprovalRecords(this.db);
    return this.records;
  }
}

export { ApprovalRecordsOnFirstUse, type WorkerApprovalRecords };
