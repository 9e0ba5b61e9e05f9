/** Public entry point of leasefence: identity, hashing, the store, job definitions and errors. */

export * from './admin/index.js';
export { type Clock, ManualClock, systemClock } from './clock.js';
export * from './errors.js';
export {
  canonicalJson,
  DEVELOPMENT_IDENTIFIER_KEY,
  hashIdentifier,
  hashIdentity,
  type IdentifierKey,
  payloadHash,
} from './hashing.js';
export { formatIdentity, type JobIdentity, parseIdentity } from './identity.js';
export {
  defineJob,
  type JobContext,
  type JobDefinition,
  JobRegistry,
  type ReconcileResult,
  TargetClass,
} from './job-definition.js';
export { type AdminHandler, type AdminHandlerOptions, createAdminHandler } from './lambda/admin-handler.js';
export { createSqsWorkerHandler } from './lambda/sqs-worker-handler.js';
export {
  createSweeperHandler,
  type SweeperHandler,
  type SweeperHandlerOptions,
  type SweepResult,
} from './lambda/sweeper-handler.js';
export { PayloadStore } from './payloads.js';
export { type ProducerDependencies, type SendJobInput, sendJob } from './producer.js';
export { WorkState } from './states.js';
export type { FailureReport, JobOutcome } from './store/transitions.js';
export type { Claim, WorkItem } from './store/work-item.js';
export { type ClaimResult, type EnqueueResult, WorkItemStore } from './store/work-item-store.js';
export { type SweepCursor, type SweepSummary, sweep } from './sweeper.js';
export { loadSweepCursor, saveSweepCursor, sweepFromStoredCursor } from './sweeper-cursor.js';
export { jobsTableDefinition, payloadsTableDefinition } from './table.js';
export { WorkerRuntime, type WorkerRuntimeOptions } from './worker/worker-runtime.js';
