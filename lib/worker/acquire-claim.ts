import { PayloadConflictError } from '../errors.js';
import type { AnyJobDefinition } from '../job-definition.js';
import type { ReceivedMessage } from '../messaging/envelope.js';
import { WorkState } from '../states.js';
import { type LeaseRequest, newWorkItem } from '../store/schemas.js';
import type { Claim, WorkItem } from '../store/work-item.js';
import type { NotClaimableReason, WorkItemStore } from '../store/work-item-store.js';

type SkipReason = NotClaimableReason | 'replay_finished';

/** The claim, or why this message needs no work (each is acknowledged; the row is the truth). */
type Acquisition =
  | { acquired: true; claim: Claim; created: boolean }
  | { acquired: false; reason: SkipReason }
  | { acquired: false; reason: 'payload_conflict'; detail: string };

/**
 * Turns a message into a claim with as few writes as possible: a first delivery creates the item already
 * claimed (one conditional PutItem); a replay claims only if the stored row says the job is claimable.
 * `lease` carries the definition's target class (recorded with the effect mark).
 */
async function acquireClaim(
  store: WorkItemStore,
  definition: AnyJobDefinition,
  { envelope, identity }: ReceivedMessage,
  lease: LeaseRequest,
): Promise<Acquisition> {
  if (envelope.kind === 'wake') return fromClaimResult(await store.claim(identity, lease));
  let existing: WorkItem;
  try {
    const enqueued = await store.enqueue(newWorkItem(identity, envelope, definition.maxAttempts), lease);
    if (enqueued.outcome === 'created' && enqueued.claim)
      return { acquired: true, claim: enqueued.claim, created: true };
    existing = enqueued.item;
  } catch (error) {
    if (error instanceof PayloadConflictError) {
      return { acquired: false, reason: 'payload_conflict', detail: 'same identity, different payload hash' };
    }
    throw error;
  }
  if (existing.jobType !== envelope.jobType) {
    return { acquired: false, reason: 'payload_conflict', detail: 'same identity and hash, different job type' };
  }
  const skip = replaySkipReason(existing, store.clock.now());
  if (skip) return { acquired: false, reason: skip };
  return fromClaimResult(await store.claim(identity, lease));
}

/** A replay needs no claim attempt when the stored row already says no (saves a write); the claim stays conditional. */
function replaySkipReason(item: WorkItem, now: number): SkipReason | undefined {
  if (item.state !== WorkState.queued && item.state !== WorkState.claimed) return 'replay_finished';
  if (item.state === WorkState.claimed && (item.leaseExpiresAt ?? 0) >= now) return 'leased';
  if (item.state === WorkState.queued && (item.availableAt ?? 0) > now) return 'not_due';
  return undefined;
}

function fromClaimResult(result: Awaited<ReturnType<WorkItemStore['claim']>>): Acquisition {
  if (result.claimed) return { acquired: true, claim: result.claim, created: false };
  return { acquired: false, reason: result.reason };
}

export { type Acquisition, acquireClaim };
