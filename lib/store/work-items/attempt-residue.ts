/**
 * The one home of the rule "a row shows only what belongs to its current state": what an attempt or a state left on
 * the row (its error code and message, its outcome and result, the note that no worker could run it) is removed by
 * every write that moves the row into another state or makes a new claim, unless that write sets it itself. So a
 * row requeued by an operator (retry, resolve to queued, raise-fences) and then run to success shows the success
 * only; the earlier attempts' codes stay in the attempt history (attempt-history.ts), the operator's in the audit.
 * Applied inside the write builders (buildClaimRequest, buildFencedUpdate, buildOperatorUpdate), never by a caller.
 */

/**
 * The note on a queued row that workers refused because none of them runs its version or type (unrunnable/): since
 * when, and how many refusals.
 */
const UnrunnableAttribute = { since: 'unrunnableSince', refusals: 'unrunnableRefusals' } as const;

/** Attributes that describe how the row's current state was entered (or, for a queued row, why nobody runs it). */
const STATE_RESIDUE = [
  'errorCode',
  'errorMessage',
  'outcomeCode',
  'result',
  ...Object.values(UnrunnableAttribute),
] as const;

/**
 * The removals of a write that enters a new state (or claims): `remove` plus every STATE_RESIDUE attribute that
 * `set` does not give a value (an undefined value is not written, so an older one must not stay beside the new state).
 */
function removingStaleResidue(set: Readonly<Record<string, unknown>>, remove: readonly string[] = []): string[] {
  const removals = [...remove];
  for (const name of STATE_RESIDUE) {
    if (set[name] === undefined && !removals.includes(name)) removals.push(name);
  }
  return removals;
}

export { removingStaleResidue, STATE_RESIDUE, UnrunnableAttribute };
