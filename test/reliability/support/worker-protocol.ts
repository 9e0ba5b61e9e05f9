import type { JobIdentity } from '../../../lib/identity.js';
import type { QueueMessage } from '../../../lib/worker/worker-runtime.js';
import type { Checkpoint } from './reliability-jobs.js';

/** How a worker process reaches the engines and which tables it uses (passed as JSON in LF_WORKER_CONFIG). */
interface WorkerProcessConfig {
  workerId: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  jobsTable: string;
  payloadsTable: string;
  ledgerTable: string;
  leaseMs: number;
  /** Where the external systems (the ledger) live when not on the jobs engine: they survive a database failure. */
  ledgerEndpoint?: string;
  /** Table of the class B records (default: the ledger table); on the jobs engine, which writes them. */
  recordsTable?: string;
  /** Log every run (operation, fence, worker) in the ledger, so a test can find two runs of one claim. */
  logRuns?: boolean;
}

/** What the test sends a worker process over IPC. */
type ParentMessage =
  | { type: 'deliver'; id: number; message: QueueMessage }
  | { type: 'continue'; point: Checkpoint; operationId: string }
  | { type: 'poll'; queueUrl: string; visibilityTimeoutSeconds: number }
  | { type: 'stop-polling' };

/** A delivery's outcome as the runtime reported it (or the error that makes the message be redelivered). */
type DeliveryOutcome =
  | { ok: true; status: string; reason?: string; state?: string; fence?: number }
  | { ok: false; error: { name: string; message: string } };

/** What a worker process tells the test. */
type ChildMessage =
  | { type: 'ready'; workerId: string }
  | { type: 'checkpoint'; point: Checkpoint; identity: JobIdentity; fence: number; attempt: number }
  | { type: 'delivered'; id: number; outcome: DeliveryOutcome }
  | { type: 'poll-error'; message: string };

export type { ChildMessage, DeliveryOutcome, ParentMessage, WorkerProcessConfig };
