import type { Clock } from '../clock.js';
import type { SqsClientSource } from '../messaging/wake.js';
import type { SweeperStore } from '../store/index.js';

/** Where the next run starts: the deadline shard served first. Safe to drop (the index is the truth). */
interface SweepCursor {
  shard: number;
}

/** What a sweep needs. `shards` defaults to the store's deadline shard count, `clock` to the store's clock. */
interface SweepOptions {
  store: SweeperStore;
  /** The client wake-ups go through, or its loader: called on the first run with something to wake. */
  sqs: SqsClientSource;
  queueUrl: string;
  clock?: Clock;
  /** Index entries read per run at most (the work bound); the rest waits for the next run. */
  maxItemsPerRun?: number;
  shards?: number;
  cursor?: SweepCursor;
  /** A queued item is re-signalled only once `availableAt + dueGraceMs` has passed (its own wake-up had time). */
  dueGraceMs?: number;
  /** After a re-signal the item's deadline moves this far ahead: at most one wake-up per item per interval. */
  resignalIntervalMs?: number;
  /** Conditional writes in flight at once. */
  concurrency?: number;
}

/** What one run did. `readRequests`/`itemsRead` count every Query it issued and every index entry returned. */
interface SweepSummary {
  scanned: number;
  sweptToUnknown: number;
  /** Jobs awaiting approval past their expiry, cancelled (`approval_expired`) by one conditional write each. */
  approvalsExpired: number;
  resignalled: number;
  /** Wake-ups that could not be sent; the moved deadline brings the item back after one interval. */
  resignalFailures: number;
  /** Why the last wake-up failed (error name and message), for the handler's log. */
  resignalError?: { name: string; message: string };
  /** Conditional writes that found the item changed since the index read (a fresher claim, a finished job). */
  lostRaces: number;
  /**
   * Claims whose index deadline passed while heartbeats kept the lease alive: their deadline moved up to the
   * real lease expiry (heartbeats never write the index; this write replaces one index move per heartbeat).
   */
  deadlinesAdvanced: number;
  /** Entries read but left alone (queued and still inside the grace period, or not a work item). */
  skipped: number;
  readRequests: number;
  itemsRead: number;
  readCapacityUnits: number;
  /** Where the next run starts; undefined when this run read every due entry of every shard. */
  cursor: SweepCursor | undefined;
  /** Age of the oldest item parked as unknown; 0 when there is none. */
  oldestUnknownAgeSeconds: number;
  /** Age of the oldest job awaiting approval; 0 when there is none. */
  oldestAwaitingApprovalAgeSeconds: number;
}

export type { SweepCursor, SweepOptions, SweepSummary };
