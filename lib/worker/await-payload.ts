import { DAY_MS } from '../rules.js';
import type { Claim, WorkItemStore } from '../store/index.js';
import type { LoadedPayload } from './load-payload.js';

/** The row's errorCode while it waits, queued, for an inline body not stored yet. */
const PAYLOAD_PENDING = 'payload_pending';

/**
 * How long a row waits for its body at most: SQS keeps a message, and its dead-letter copy (whose retention counts
 * from the first send), 14 days at most, so past that no delivery can still carry the body.
 */
const PAYLOAD_WAIT_HORIZON_MS = 14 * DAY_MS;

const MIN_WAIT_MS = 60_000;
const MAX_WAIT_MS = 6 * 60 * 60_000;

/** What a claim without its body came to: the row waits queued for it, or is quarantined (the wait is over). */
type BodyWait = { waiting: true; waitMs: number } | { waiting: false; errorCode: 'payload_missing'; message: string };

/**
 * A claimed row whose inline body is not stored (`notStoredYet`: the slot is empty, not erased) is never run. Within
 * PAYLOAD_WAIT_HORIZON_MS of the row's creation it goes back to queued, its attempt given back, for half its age
 * (1 min to 6 h, so the checks thin out): a carried body is stored after its row, and a crash between the two leaves
 * the row to the message's redelivery, which stores the body. Past the horizon it is quarantined `payload_missing`
 * (the body can no longer come). OwnershipLostError when superseded (the message is acknowledged by the caller).
 */
async function awaitMissingBody(
  store: WorkItemStore,
  claim: Claim,
  missing: Pick<Extract<LoadedPayload, { ok: false }>, 'message'>,
): Promise<BodyWait> {
  const age = Math.max(0, store.now() - claim.createdAt);
  if (age >= PAYLOAD_WAIT_HORIZON_MS) {
    const message = `${missing.message}; waited past the longest a message can still carry it`;
    await store.quarantine(claim, { errorCode: 'payload_missing', message });
    return { waiting: false, errorCode: 'payload_missing', message };
  }
  const waitMs = Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, Math.floor(age / 2)));
  const message = `${missing.message}; not run, queued until its message stores it`;
  await store.awaitPayload(claim, { errorCode: PAYLOAD_PENDING, message }, waitMs);
  return { waiting: true, waitMs };
}

export { awaitMissingBody, type BodyWait, PAYLOAD_PENDING, PAYLOAD_WAIT_HORIZON_MS };
