import type { ApprovalGate } from '../approval-policy.js';
import { isLeasefenceError, PayloadConflictError } from '../errors.js';
import type { JobDefinition } from '../job-definition.js';
import type { BoundMessage } from '../messaging/envelope.js';
import type { WorkItemStore } from '../store/index.js';
import { newWorkItem } from '../store/index.js';
import type { RowBound } from './acquire-claim.js';

/** What deferring a message of a switched-off job type came to (`not_created`: no row, and none may be created). */
type Deferral =
  | { deferred: true }
  | { deferred: false; reason: 'not_created' }
  | { deferred: false; reason: 'payload_conflict'; detail: string };

const PAYLOAD_CONFLICT: Deferral = {
  deferred: false,
  reason: 'payload_conflict',
  detail: 'same identity, different payload hash',
};

/**
 * A job type switched off in this deployment (cut over one type at a time): its message is acknowledged
 * without running, and its work row is the truth that it still waits. A first send creates the row queued
 * (never claimed: no attempt is used); an existing row is left untouched. The sweeper re-signals queued rows,
 * so once the type is switched on the next wake-up runs it. A different payload is still a conflict. Without
 * `mayCreate` (the payload did not verify) no row is created: an existing one with the same hash is left as it is.
 * With `gate` (the job needs approval) the row is created awaiting_approval, as when the type is switched on.
 * `rowBound` runs once the row is bound to this message (as in acquireClaim: a carried body is stored then).
 */
async function deferDisabled(
  store: WorkItemStore,
  definition: JobDefinition<unknown>,
  { envelope, identity }: BoundMessage,
  mayCreate: boolean,
  gate?: ApprovalGate,
  rowBound?: RowBound,
): Promise<Deferral> {
  if (envelope.kind === 'wake') return { deferred: true };
  if (!mayCreate) {
    const existing = await store.get(identity);
    if (!existing) return { deferred: false, reason: 'not_created' };
    return existing.payloadHash === envelope.payloadHash ? { deferred: true } : PAYLOAD_CONFLICT;
  }
  try {
    const jobVersion = envelope.jobVersion ?? definition.version;
    const enqueued = await store.enqueue(
      newWorkItem(identity, { ...envelope, jobVersion }, definition.maxAttempts, undefined, gate),
    );
    await rowBound?.(enqueued.outcome === 'created' ? 'created' : enqueued.item);
    return { deferred: true };
  } catch (error) {
    if (isLeasefenceError(error, PayloadConflictError)) {
      return PAYLOAD_CONFLICT;
    }
    throw error;
  }
}

export { type Deferral, deferDisabled };
