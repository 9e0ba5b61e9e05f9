/**
 * The store's one door: everything outside lib/store/ reaches the jobs and payloads tables through these names
 * (tests may open a room directly). WorkItemStore is the worker's core; SweeperStore (operator/) adds the sweeper's
 * facets, OperatorStore (operator/) those of the admin API and the tools, ShadowStore (shadow/) the shadow claims. Rooms: driver/ (requests and
 * marshalling), work-items/ (rows, holder transitions, fences), payloads/, approvals/, review/ (an approver's payload
 * read), successors/, shadow/, operator/, deadlines/ (the sweeper's index), parked/ (listings), records/ (audit,
 * quarantine), maintenance/, unrunnable/ (rows no deployed worker runs), flow-control/ (concurrency slots and provider
 * budgets); table.ts holds the table format.
 */

export type { ApprovalRecord } from './approvals/approval-records.js';
export { type ApprovalDecision, expireApprovalTransition } from './approvals/approval-requests.js';
export {
  CheckEvidence,
  type CheckEvidenceRecord,
  type ObservedEffect,
  type ObservedWrite,
} from './check-evidence/check-evidence.js';
export { isPlainRecord } from './driver/attribute-values.js';
export { sendConditional } from './driver/conditional-write.js';
export type { ReadCost } from './driver/connection.js';
export { ExpressionBuilder } from './driver/expressions.js';
export { sendGet, sendScan, type TableClient } from './driver/plain-requests.js';
export type { BudgetState } from './flow-control/budget-reads.js';
export type { BudgetRate, BudgetRef } from './flow-control/budget-requests.js';
export type { TokenVerdict } from './flow-control/budgets.js';
export { CONCURRENCY_WAIT, SLOT_PARTITION_PREFIX, type WaiterRecord } from './flow-control/slot-requests.js';
export type { LimitUsage } from './flow-control/slot-usage.js';
export type { HeldSlot, SlotGrant, SlotStore } from './flow-control/slots.js';
export { type StackCheckCleanup, StackCheckRows } from './maintenance/stack-check-rows.js';
export { DEFAULT_WORKER_MAX_RUN_MS, holdersGoneAt } from './operator/holder-bound.js';
export type { OperatorTransition } from './operator/operator-requests.js';
export { OperatorStore } from './operator/operator-store.js';
export {
  type OperatorAction,
  raiseFenceTransition,
  requeueTransition,
  resolveTransition,
  sweepToUnknownTransition,
} from './operator/operator-transitions.js';
export { SweeperStore } from './operator/sweeper-store.js';
export { PARKED_SHARD_READS_IN_FLIGHT, parkedShards, stateOfParkedKey } from './parked/parked-keys.js';
export { rowAwaitsBody } from './payloads/body-binding.js';
export type { ErasureProgress, ErasureScope } from './payloads/payload-erasure.js';
export { PayloadStore } from './payloads/payloads.js';
export type { AuditInput, AuditRecord } from './records/audit.js';
export { AuditMigration } from './records/audit-migration.js';
export type { RawIdAuditRecord } from './records/audit-pseudonyms.js';
export type { ReviewedBody } from './review/payload-review.js';
export type { ShadowClaims, ShadowRead } from './shadow/shadow-claims.js';
export { MAX_SHADOW_EXECUTIONS, type ShadowExecution, type ShadowOutcome } from './shadow/shadow-requests.js';
export { ShadowStore } from './shadow/shadow-store.js';
export { MAX_SUCCESSORS, type NewSuccessor } from './successors/successor-requests.js';
export {
  APPROVAL_PARTITION_PREFIX,
  AUDIT_PARTITION,
  DEFAULT_DEADLINE_SHARDS,
  deadlineShardName,
  JobsIndex,
  jobsTableDefinition,
  KeyPrefix,
  payloadsTableDefinition,
  STACK_CHECK_TENANT_PREFIX,
  SWEEPER_PARTITION,
  TableKeys,
  TENANT_BUCKETS,
  TTL_ATTRIBUTE,
  tenantBucketKey,
  tenantPartitionKeys,
} from './table.js';
export type { RefusalOutcome } from './unrunnable/unrunnable.js';
export { UNRUNNABLE_CEILING, UnrunnableCode, type UnrunnableRefusal } from './unrunnable/unrunnable-requests.js';
export { FLOW_CONTROL_OMITTED, WorkItemStore, type WorkItemStoreOptions } from './work-item-store.js';
export type { AttemptRecord } from './work-items/attempt-history.js';
export { LEASE_LOST_CODE } from './work-items/attempt-history.js';
export {
  epochFloor,
  FENCE_EPOCH_BURST,
  fenceEpochBudget,
  fenceEpochOf,
  MAX_FENCE_EPOCH,
  SETTINGS_PARTITION,
} from './work-items/fence-epoch.js';
export {
  claimability,
  type FencedTransactionParts,
  type HolderTransition,
  type NotClaimableReason,
  type TransactItem,
} from './work-items/requests.js';
export {
  type JobBinding,
  type LeaseDuration,
  type LeaseRequest,
  MAX_OWNED_RECORDS,
  newWorkItem,
  parseLease,
} from './work-items/schemas.js';
export {
  completeTransition,
  type FailureReport,
  type JobOutcome,
  parseJobOutcome,
  stepTransition,
  type ValidOutcome,
} from './work-items/transitions.js';
export {
  type AuditEntry,
  type CallerIdentity,
  type Claim,
  identityOfItem,
  isWorkItem,
  type OperatorStatement,
  type OwnedRecordRef,
  type StepRecord,
  type WorkItem,
} from './work-items/work-item.js';
