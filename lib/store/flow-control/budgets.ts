import { sendConditional } from '../driver/conditional-write.js';
import type { StoreConnection } from '../driver/connection.js';
import { type BucketCase, type BudgetRate, type BudgetRef, buildTake, nextStep } from './budget-requests.js';

/** A take's verdict: a token granted at `at` (the store's clock), or none, with the milliseconds until the next. */
type TokenVerdict = { granted: true; at: number } | { granted: false; retryAfterMs: number };

/** The case each budget's last write found, so the next take tries the likely one first (a hint, never a decision). */
const lastCase = new Map<string, BucketCase>();
const HINTS_KEPT = 1_000;

/**
 * Takes one token from a budget shared by every worker: one conditional UpdateItem decides (never a read then a
 * write). A failed condition reads the row back (sendConditional) and either tries the other case once with that
 * fresh state or reports how long until the next token. At most 2 writes and 2 reads per take, usually 1 write.
 * Infrastructure errors propagate (the caller redelivers; nothing was granted).
 */
async function takeToken(db: StoreConnection, ref: BudgetRef, rate: BudgetRate): Promise<TokenVerdict> {
  const hintKey = `${ref.provider}\u0000${ref.scope}`;
  let bucket: BucketCase = lastCase.get(hintKey) ?? 'idle';
  for (let tries = 0; tries < 2; tries += 1) {
    const now = db.clock.now();
    const outcome = await sendConditional(db.client, {
      kind: 'update',
      ...buildTake(db.table.tableName, ref, rate, bucket, now),
    });
    if (outcome.ok) {
      remember(hintKey, bucket);
      return { granted: true, at: now };
    }
    const step = nextStep(outcome.current, rate, db.clock.now());
    if (typeof step !== 'string') return { granted: false, retryAfterMs: step.waitMs };
    remember(hintKey, step);
    if (step === bucket) break; // another worker moved the row between the write and the read: report a short wait
    bucket = step;
  }
  return { granted: false, retryAfterMs: 1 };
}

function remember(hintKey: string, bucket: BucketCase): void {
  if (lastCase.size >= HINTS_KEPT && !lastCase.has(hintKey)) lastCase.clear();
  lastCase.set(hintKey, bucket);
}

export { type TokenVerdict, takeToken };
