import type { JobIdentity, ValidIdentity } from '../../identity.js';
import type { WorkState } from '../../states.js';
import type { AttemptRecord } from './attempt-history.js';

/**
 * The AWS caller behind an operator action as the admin Function URL authenticated it: the account, the unique
 * user id (`AIDA…`, or `AROA…:session` for a role) and the access key id. Absent locally (no IAM there).
 */
interface CallerIdentity {
  accountId: string;
  userId: string;
  accessKeyId: string;
}

/** One audited operator action, stored on the item in the same write as the transition it records. */
interface AuditEntry {
  at: number;
  actor: string;
  /** Who `actor` is beyond its ARN (whose session name the caller chose), when AWS authenticated the call. */
  caller?: CallerIdentity;
  action: string;
  from: WorkState;
  to: WorkState;
  reason: string;
  /** The fence the action left; absent for an approval or rejection, written without a read (the fence is unchanged). */
  fence?: number;
  /** An operator's explicit statement recorded with the action (e.g. the effect did not happen). */
  statement?: OperatorStatement;
}

/** Statements an operator can make on the record; each is kept in the audit trail of the action. */
type OperatorStatement = 'effect_did_not_happen';

/** The target class a job type declared (mirrors job-definition's TargetClass; the store must not import it). */
type StoredTargetClass = 'A' | 'B' | 'C' | 'D';

/** A record a job type declares it owns (derived from its identity): its table and full primary key. */
interface OwnedRecordRef {
  readonly tableName: string;
  readonly key: Readonly<Record<string, unknown>>;
}

/** A durable step's record: the fence it ran under and its small result. */
interface StepRecord {
  fence: number;
  at: number;
  result?: unknown;
}

/**
 * The work row: identity, payload binding, state, fence and lease. Never holds a payload body.
 * `fence` only rises; the row outlives its payload as a tombstone so the fence never restarts.
 */
interface WorkItem extends JobIdentity {
  pk: string;
  sk: string;
  kind: 'work';
  jobType: string;
  /** The job version bound to the row at its first write (or first claim of an older row): only it runs the row. */
  jobVersion?: number;
  /**
   * The write token of a queued create: a create retried after a lost response finds its own token and is
   * recognised as created (a claimed create's `claimId` plays that part).
   */
  createToken?: string;
  payloadHash: string;
  payloadRef?: string;
  payloadInline?: boolean;
  state: WorkState;
  fence: number;
  attempts: number;
  maxAttempts: number;
  leaseOwner?: string;
  leaseExpiresAt?: number;
  /** When the last claim was made (kept after the attempt ends): no holder of it runs past this + the worker's timeout. */
  claimedAt?: number;
  claimId?: string;
  /**
   * Set by every claim, before any job body can start, and cleared only by an operator's explicit statement:
   * an effect may have happened, whatever the attempts counter says (an operator retry resets that).
   */
  effectMayHaveHappened?: boolean;
  /** The target class of the job type, recorded by the claim so operator tools can tell a class D item. */
  targetClass?: StoredTargetClass;
  /** Class C: how long the provider keeps the idempotency key, recorded by the claim (an operator retry past it needs a statement). */
  keyRetentionMs?: number;
  /** The records the job type declares it owns, recorded by the claim: a cancel stamps them with its fence. */
  ownedRecords?: OwnedRecordRef[];
  availableAt?: number;
  outcomeCode?: string;
  result?: unknown;
  errorCode?: string;
  errorMessage?: string;
  steps: Record<string, StepRecord>;
  /** A successor job: the operation id (same tenant) of the job whose completion enqueued it. */
  parentOperationId?: string;
  /** The operation ids (same tenant) of the successors this job's completion enqueued. */
  successors?: string[];
  audit?: AuditEntry[];
  /** Attempt history (see attempt-history.ts): the last claims with fence, owner, start, end and code. */
  ah?: AttemptRecord[];
  createdAt: number;
  updatedAt: number;
  finishedAt?: number;
  deadlineShard?: string;
  deadlineAt?: number;
  parkedState?: string;
  parkedTenantState?: string;
  parkedAt?: number;
  /** awaiting_approval: when the sweeper cancels the job if nobody decided (also its deadline-index entry). */
  approvalExpiresAt?: number;
  /** awaiting_approval: who may approve (`anyone`, or `not-producer`: not `producerId`). */
  approvers?: 'anyone' | 'not-producer';
  /** The producer's IAM principal id (its SenderId without the session), recorded for an approval gate. */
  producerId?: string;
  /** When an approver approved this row's payload (set by the approval's conditional write, never removed). */
  approvedAt?: number;
  /** queued: when a worker first refused it because it runs neither its version nor its type (unrunnable/). */
  unrunnableSince?: number;
  /** queued: how many such refusals since; past the ceiling the row is parked quarantined. */
  unrunnableRefusals?: number;
  /** queued for a concurrency slot: when it first found its limit full (a claim removes it, a wait sets it again). */
  flowWaitingSince?: number;
}

/** Proof of one claim: the fence every write of this attempt carries. Only the store creates one. */
interface Claim {
  readonly identity: ValidIdentity;
  readonly fence: number;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly owner: string;
  readonly claimId: string;
  readonly leaseExpiresAt: number;
  readonly jobType: string;
  readonly payloadHash: string;
  readonly payloadRef?: string;
  readonly payloadInline: boolean;
  /** True when this claim took over an expired lease from another attempt. */
  readonly takeover: boolean;
  /** True when the row carries an approval (`approvedAt`): a gated job may run only then. */
  readonly approved: boolean;
  /** Steps finished by earlier attempts, to be skipped. */
  readonly steps: Readonly<Record<string, StepRecord>>;
  /** True when an earlier claim may have started an effect (the item carried the mark before this claim). */
  readonly effectMayHaveHappened: boolean;
  /** The attempt history as this claim wrote it (its own entry open, last): the end transition closes it. */
  readonly history: readonly AttemptRecord[];
  /** When the row was created (store clock): how long a row without its body has waited for it. */
  readonly createdAt: number;
  /** When the job first found a concurrency limit full, if it has waited for a slot since it last ran. */
  readonly waitingSince?: number;
}

/**
 * The identity of a row the store wrote: its tenantId and operationId passed identitySchema when the row was
 * created (the key is built from them), so they are not checked again. Frozen.
 */
function identityOfItem(item: Pick<WorkItem, 'tenantId' | 'operationId'>): ValidIdentity {
  return Object.freeze({ tenantId: item.tenantId, operationId: item.operationId }) as ValidIdentity;
}

/**
 * Builds the claim a stored, claimed item represents, carrying `identity` (the one the claim was asked with, so
 * it is not rebuilt); `effectBefore` is the mark as it was before this claim.
 */
function claimFromItem(item: WorkItem, identity: ValidIdentity, takeover: boolean, effectBefore = false): Claim {
  return Object.freeze({
    identity,
    fence: item.fence,
    attempt: item.attempts,
    maxAttempts: item.maxAttempts,
    owner: item.leaseOwner ?? '',
    claimId: item.claimId ?? '',
    leaseExpiresAt: item.leaseExpiresAt ?? 0,
    jobType: item.jobType,
    payloadHash: item.payloadHash,
    ...(item.payloadRef !== undefined ? { payloadRef: item.payloadRef } : {}),
    payloadInline: item.payloadInline === true,
    takeover,
    approved: item.approvedAt !== undefined,
    steps: Object.freeze({ ...(item.steps ?? {}) }),
    effectMayHaveHappened: effectBefore,
    history: Object.freeze([...(item.ah ?? [])]),
    createdAt: item.createdAt,
    ...(item.flowWaitingSince !== undefined ? { waitingSince: item.flowWaitingSince } : {}),
  });
}

/** True if the raw record is a work item (the jobs table also holds quarantine and audit records). */
function isWorkItem(record: Record<string, unknown> | undefined): record is WorkItem & Record<string, unknown> {
  return record !== undefined && record.kind === 'work';
}

export {
  type AuditEntry,
  type CallerIdentity,
  type Claim,
  claimFromItem,
  identityOfItem,
  isWorkItem,
  type OperatorStatement,
  type OwnedRecordRef,
  type StepRecord,
  type StoredTargetClass,
  type WorkItem,
};
