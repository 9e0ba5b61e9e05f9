/**
 * Public entry point of leasefence: what an application needs to define jobs, run them in Lambda, send them,
 * and handle the errors. Internals (the store, the runtime, the admin operations) are not exported here;
 * test/unit/public-api.test.ts pins the list of runtime exports so an internal cannot leak in unnoticed.
 */

export { alertRoutesOf } from './alert-route.js';
export { type Clock, ManualClock, systemClock } from './clock.js';
export { EnvironmentVariable, type LeasefenceConfig, readConfig } from './config.js';
export {
  AmbiguousOutcomeError,
  type AnyLeasefenceError,
  BatchIncompleteError,
  BusinessConditionError,
  type BusinessRefusal,
  CapabilityMissingError,
  ConfigurationError,
  ErrorCode,
  FenceRejectedError,
  type FenceRejection,
  IllegalTransitionError,
  type InputIssue,
  InvalidInputError,
  ItemNotFoundError,
  isLeasefenceError,
  JobDefinitionError,
  type LeaseDoubt,
  LeasefenceError,
  type LeasefenceErrorClass,
  type LeasefenceErrorCode,
  type LeasefenceErrorOptions,
  LeaseInDoubtError,
  OperatorStatementRequiredError,
  type OwnershipLoss,
  OwnershipLostError,
  PayloadConflictError,
  RateLimitedError,
  RetryableJobError,
  StatementTooEarlyError,
  SuccessorRefusedError,
  TerminalJobError,
  TransactionCancelledError,
  TransactionTokenReusedError,
  UnexpectedItemError,
} from './errors.js';
export type { BusinessCondition, Expectation, Scalar } from './fenced/conditions.js';
export { FenceRejectReason } from './fenced/fence-rules.js';
export type {
  FencedBatchEntry,
  FencedBatchOptions,
  FencedBatchReport,
  FencedRecords,
  FencedWriteResult,
  RecordChange,
  RecordRef,
} from './fenced/records.js';
export type { FencedTransactions, StepOutcome, WritesInput } from './fenced/transaction.js';
export type { SharedWrite } from './fenced/transaction-requests.js';
export type { Priority } from './flow-control/priorities.js';
export type { RateLimitDeclaration, RateLimitScope, RateLimitTake } from './flow-control/rate-limits.js';
export { payloadHash } from './hashing.js';
export { formatIdentity, type JobIdentity, parseIdentity } from './identity.js';
export {
  type AnyJobDefinition,
  defineJob,
  type JobContext,
  type JobDefinition,
  type JobDefinitionInput,
  type JobFlowInput,
  type ProviderDeclaration,
  type ProviderDependencies,
  type ReconcileResult,
  type Reversibility,
  type SuccessorOptions,
  TargetClass,
} from './job-definition.js';
export { type AdminHandler, type AdminHandlerOptions, createAdminHandler } from './lambda/admin-handler.js';
export {
  createSqsWorkerHandler,
  type SqsWorkerHandler,
  type SqsWorkerHandlerOptions,
} from './lambda/sqs-worker-handler.js';
export {
  createSweeperHandler,
  type SweeperHandler,
  type SweeperHandlerOptions,
  type SweepResult,
} from './lambda/sweeper-handler.js';
export type { DelayedJobsConfig, ScheduledRow } from './messaging/delayed-job.js';
export {
  enqueueTransactItems,
  type OutboxDependencies,
  type OutboxEnqueue,
  type OutboxJobInput,
  type OutboxReplay,
  outboxReplay,
} from './messaging/outbox.js';
export type { ProducerDependencies, SendJobInput, SentJob, StoredJob } from './messaging/producer.js';
export { sendJob } from './messaging/producer.js';
export {
  defineSchedule,
  defineSchedules,
  enqueueOccurrence,
  type Occurrence,
  occurrenceAt,
  type ScheduleDeclaration,
  type ScheduleInput,
} from './messaging/schedule.js';
export { ShadowFinding } from './shadow/findings.js';
export type { IdentifyMessage, ShadowIdentity } from './shadow/recorder.js';
export type { JobTypeShadowReport, ShadowReport, ShadowVerdict } from './shadow/report.js';
export { type ShadowOptions, shadowHandler, shadowRecordHandler } from './shadow/wrap.js';
export { WorkState } from './states.js';
export type { Claim, FailureReport, JobOutcome, StepRecord, WorkItem } from './store/index.js';
// The producer stores inline payload bodies through it (ProducerDependencies.payloads).
export { PayloadStore } from './store/index.js';
export type { SweepSummary } from './sweeper/sweeper.js';
export type { Telemetry } from './telemetry.js';
export type { PayloadResolver } from './worker/load-payload.js';
export type { MessageResult } from './worker/worker-runtime.js';
