import type { Clock } from '../clock.js';
import type { IdentifierKey } from '../hashing.js';
import type { SenderTenants } from '../messaging/sender-tenants.js';
import type { SqsClientSource } from '../messaging/wake.js';
import type { OperatorStore, TableClient } from '../store/index.js';
import type { RoutePrincipals } from './route-principals.js';

/** Worker counters since `since` (epoch ms), where the host keeps them (the local stack); keyed by MetricName. */
interface MetricCounts {
  since: number;
  counts: Record<string, number>;
}

/**
 * What the admin operations reach: the store (every read and write of the jobs table and of payload bodies),
 * the queues, and the name of the payloads table. Built once per container by the handler; tests pass engine-backed instances.
 */
interface AdminDeps {
  store: OperatorStore;
  /** The queues' client, or its loader (the handler's: the SQS SDK loads on the first route that sends or reads a queue). */
  sqs: SqsClientSource;
  queueUrl: string;
  /** Needed only by redrive; absent ▶ ConfigurationError. */
  deadLetterQueueUrl?: string;
  payloadsTable: string;
  /** Long-poll seconds when reading the DLQ (0–20). AWS short polls may miss messages; default 1. */
  dlqWaitTimeSeconds?: number;
  /**
   * Reads the user's record tables when raise-fences looks for their highest `writer_epoch` (never the jobs
   * table: that is the store's); the caller's credentials need Scan on those tables.
   */
  recordClient?: TableClient;
  /** Defaults to the store's clock. */
  clock?: Clock;
  /** The worker's counters, where the host keeps them in process (the local stack); absent on AWS (CloudWatch). */
  metrics?: () => Promise<MetricCounts | undefined>;
  /** Per-route allowlists of principals (LEASEFENCE_ADMIN_ROUTE_PRINCIPALS); absent: IAM on the URL decides alone. */
  routePrincipals?: RoutePrincipals;
  /** The worker's sender policy (LEASEFENCE_SENDER_TENANTS): a redrive tells relays' messages from producers'. */
  senderTenants?: SenderTenants;
  /**
   * The worker's longest run (its function timeout, ms; LEASEFENCE_WORKER_MAX_RUN_MS): "the effect did not happen" is
   * refused until this long after the job's last claim. Default DEFAULT_WORKER_MAX_RUN_MS (15 minutes).
   */
  workerMaxRunMs?: number;
  /** The deployment's key for pseudonyms (audit records name tenants and operations by them); default: the development key. */
  identifierKey?: IdentifierKey;
}

/** The clock admin operations use: the deps' own, else the store's. */
function adminClock(deps: AdminDeps): Clock {
  return deps.clock ?? { now: () => deps.store.now() };
}

export { type AdminDeps, adminClock, type MetricCounts };
