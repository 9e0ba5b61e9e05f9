import type { TargetWrite } from '../../lib/fault-injection/classify.js';

/**
 * Which client sent a request: the worker runtime's own (the store and `ctx.client`), the client its provider
 * was built on, or any other client in the process (one the job built itself, a shared client module).
 */
type RequestSource = 'runtime' | 'provider' | 'process';

/**
 * One DynamoDB request as it reached the engine boundary (one per HTTP request: an SDK retry is a second entry,
 * so a write whose response was lost and that the SDK sent again is seen twice, as the engine saw it).
 */
interface ObservedRequest {
  readonly seq: number;
  /** The worker it is attributed to (its runtime's clients are labelled; any other client: the one worker running). */
  readonly worker: string;
  readonly source: RequestSource;
  /** The scenario and sample running when it was sent. */
  readonly scenario: string;
  readonly sample: number;
  /** Low-level operation name: PutItem, UpdateItem, TransactWriteItems, … */
  readonly operation: string;
  /** Every table the request names (reads included). */
  readonly tables: readonly string[];
  /** Writes to tables other than the library's own; empty for the external system's storage (class C/D provider). */
  readonly writes: readonly TargetWrite[];
  /** True when it changed the work table (the library's own state transitions). */
  readonly workTable: boolean;
  /** Settled outcome: landed (the engine accepted it) or the error name; undefined while in flight. */
  outcome: { landed: true } | { landed: false; error: string } | undefined;
}

export { classifyRequest, type TargetWrite, tablesOf } from '../../lib/fault-injection/classify.js';
export type { ObservedRequest, RequestSource };
