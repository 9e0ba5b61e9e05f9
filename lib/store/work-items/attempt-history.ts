/**
 * Attempt history stored on the work row: one compact entry per claim, the last ATTEMPT_HISTORY_LIMIT kept.
 * Written by the claim (an open entry) and closed by the transition that ends the attempt, in the same single
 * write each time: the history never costs a request of its own.
 */

/** Item attribute holding the history (short: every byte of the row is billed on every write). */
const ATTEMPT_HISTORY_ATTRIBUTE = 'ah';

/** Closed entries kept on the row (open ones of a takeover chain are closed, and trimmed, by the next end). */
const ATTEMPT_HISTORY_LIMIT = 5;

/** Code of an attempt that lost its lease to a takeover without recording an end (its worker stopped or stalled). */
const LEASE_LOST_CODE = 'lease_lost';

/** One claim: f fence, o lease owner, s claimed at, e ended at, r outcome or error code. Open while `r` is absent. */
interface AttemptRecord {
  f?: number;
  o: string;
  s: number;
  e?: number;
  r?: string;
}

/** The entry a claim appends (the claim is a blind conditional write, so the fence is filled in when it closes). */
function openAttempt(owner: string, now: number): AttemptRecord {
  return { o: owner, s: now };
}

/**
 * Closes the open entries at the end of `history` and keeps the last ATTEMPT_HISTORY_LIMIT. The newest open
 * entry is the attempt holding `fence`, ended at `end` with `code`; older open entries are attempts taken over
 * one fence at a time (only a claim leaves an entry open), so they get `fence - 1`, `fence - 2`… and lease_lost.
 */
function closeAttempts(
  history: readonly AttemptRecord[] | undefined,
  fence: number,
  end: number,
  code: string,
): AttemptRecord[] {
  const entries = history ?? [];
  let firstOpen = entries.length;
  while (firstOpen > 0 && (entries[firstOpen - 1] as AttemptRecord).r === undefined) firstOpen -= 1;
  const start = Math.max(0, entries.length - ATTEMPT_HISTORY_LIMIT);
  const closed: AttemptRecord[] = [];
  for (let index = start; index < entries.length; index += 1) {
    const entry = entries[index] as AttemptRecord;
    if (index < firstOpen) {
      closed.push(entry);
      continue;
    }
    // Open entries, oldest first: the newest is this attempt (fence), each older one the fence before it.
    const entryFence = fence - (entries.length - 1 - index);
    closed.push(
      index === entries.length - 1
        ? { ...entry, f: entryFence, e: end, r: code }
        : { ...entry, f: entryFence, r: LEASE_LOST_CODE },
    );
  }
  return closed;
}

export {
  ATTEMPT_HISTORY_ATTRIBUTE,
  ATTEMPT_HISTORY_LIMIT,
  type AttemptRecord,
  closeAttempts,
  LEASE_LOST_CODE,
  openAttempt,
};
