import type { ApprovalGate } from '../approval-policy.js';
import { isLeasefenceError, PayloadConflictError } from '../errors.js';
import { ownedRecordsFor } from '../fenced/cancel-stamps.js';
import type { AnyJobDefinition } from '../job-definition.js';
import type { BoundMessage } from '../messaging/envelope.js';
import type { Claim, WorkItem, WorkItemStore } from '../store/index.js';
import { claimability, type LeaseRequest, type NotClaimableReason, newWorkItem } from '../store/index.js';

type SkipReason = NotClaimableReason | 'replay_finished';

/**
 * The claim, or why this message needs no work (each is acknowledged; the row is the truth). `not_created`: a first
 * message whose payload did not verify names an identity without a row, and none is created for it.
 */
type Acquisition =
  | { acquired: true; claim: Claim; created: boolean }
  | { acquired: false; reason: SkipReason }
  | { acquired: false; reason: 'not_created' }
  | { acquired: false; reason: 'payload_conflict'; detail: string };

/**
 * Turns a message into a claim with as few writes as possible: a first delivery creates the item already
 * claimed (one conditional PutItem) when `mayCreate` (its payload verified); a replay claims only if the stored row
 * says the job is claimable. Without `mayCreate` only an existing row is read and claimed, never a new one created.
 * `lease` carries the definition's target class (recorded with the effect mark) and version (a row bound to
 * another version is not claimed: `version_unsupported`, the row untouched); the claim adds the records the
 * type declares it owns for this identity. With `gate` (the job needs approval) a first delivery creates the row
 * awaiting_approval instead and claims nothing: `awaiting_approval`, acknowledged; the approval sends a wake-up.
 * `rowBound` runs once the row's conditional write found it bound to this message (created now, or existing with
 * the same hash and type), before any claim of an existing row: where a carried body is stored after its row.
 */
async function acquireClaim(
  store: WorkItemStore,
  definition: AnyJobDefinition,
  received: BoundMessage,
  typeLease: LeaseRequest,
  mayCreate: boolean,
  gate?: ApprovalGate,
  rowBound?: RowBound,
): Promise<Acquisition> {
  const { envelope, identity } = received;
  // The records this identity's job owns ride on the claim, so the row names them for a cancel to stamp.
  const owned = ownedRecordsFor(definition.type, definition.ownedRecords, identity);
  const lease = owned ? { ...typeLease, ownedRecords: owned } : typeLease;
  if (envelope.kind === 'wake') return fromClaimResult(await store.claim(identity, lease));
  let existing: WorkItem;
  if (!mayCreate) {
    const stored = await store.get(identity);
    if (!stored) return { acquired: false, reason: 'not_created' };
    if (stored.payloadHash !== envelope.payloadHash) {
      return { acquired: false, reason: 'payload_conflict', detail: 'same identity, different payload hash' };
    }
    return replayClaim(store, stored, received, lease);
  }
  try {
    const enqueued = await store.enqueue(
      newWorkItem(identity, envelope, definition.maxAttempts, undefined, gate),
      lease,
    );
    if (enqueued.outcome === 'created') await rowBound?.('created');
    if (enqueued.outcome === 'created' && enqueued.claim)
      return { acquired: true, claim: enqueued.claim, created: true };
    if (enqueued.outcome === 'created') return { acquired: false, reason: 'awaiting_approval' };
    existing = enqueued.item;
  } catch (error) {
    if (isLeasefenceError(error, PayloadConflictError)) {
      return { acquired: false, reason: 'payload_conflict', detail: 'same identity, different payload hash' };
    }
    throw error;
  }
  if (existing.jobType === envelope.jobType) await rowBound?.(existing);
  return replayClaim(store, existing, received, lease);
}

/** Called with the row a message's conditional write found bound to it: `created` now, or the existing one. */
type RowBound = (row: WorkItem | 'created') => Promise<void>;

/** A message for a row that exists with the same hash: the same job type, then a claim only if the row allows one. */
async function replayClaim(
  store: WorkItemStore,
  existing: WorkItem,
  { envelope, identity }: BoundMessage,
  lease: LeaseRequest,
): Promise<Acquisition> {
  if (existing.jobType !== envelope.jobType) {
    return { acquired: false, reason: 'payload_conflict', detail: 'same identity and hash, different job type' };
  }
  const skip = replaySkipReason(existing, store.now(), lease.jobVersion);
  if (skip) return { acquired: false, reason: skip };
  return fromClaimResult(await store.claim(identity, lease));
}

/**
 * A replay needs no claim attempt when the stored row already says no (claimability: saves a write); the claim
 * stays conditional. A finished row is `replay_finished`: this message is a late copy of work already done.
 */
function replaySkipReason(item: WorkItem, now: number, jobVersion: number | undefined): SkipReason | undefined {
  const verdict = claimability(item, now, jobVersion);
  if (verdict.claimable) return undefined;
  return verdict.reason === 'finished' ? 'replay_finished' : verdict.reason;
}

function fromClaimResult(result: Awaited<ReturnType<WorkItemStore['claim']>>): Acquisition {
  if (result.claimed) return { acquired: true, claim: result.claim, created: false };
  return { acquired: false, reason: result.reason };
}

export { type Acquisition, acquireClaim, type RowBound };
