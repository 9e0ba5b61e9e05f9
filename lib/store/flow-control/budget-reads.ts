import type { StoreConnection } from '../driver/connection.js';
import { sendGet } from '../driver/plain-requests.js';
import { type BudgetRate, type BudgetRef, budgetKey, spacingUs } from './budget-requests.js';
import { budgetWaiters } from './budget-waiters.js';

/**
 * A provider budget as its row stands now (an operator's read, never a decision): the numbers the latest take wrote,
 * the tokens a take would find, and when the next token is granted (now while tokens remain). The jobs waiting on it
 * are its waiter items (budgetWaiters, budget-waiters.ts), read apart.
 */
interface BudgetState extends BudgetRate {
  readonly provider: string;
  readonly tokens: number;
  readonly nextGrantAt: number;
  readonly updatedAt?: number;
}

/** Tokens a take would find at `nowMs` in a bucket whose theoretical arrival time is `tatUs` (GCRA, see budget-requests). */
function tokensAt(tatUs: number, rate: BudgetRate, nowMs: number): { tokens: number; nextGrantAt: number } {
  const spacing = spacingUs(rate);
  const nowUs = nowMs * 1000;
  const tauUs = (rate.burst - 1) * spacing;
  if (tatUs < nowUs) return { tokens: rate.burst, nextGrantAt: nowMs };
  if (tatUs > nowUs + tauUs) return { tokens: 0, nextGrantAt: Math.ceil((tatUs - tauUs) / 1000) };
  return { tokens: Math.min(rate.burst, Math.floor((nowUs + tauUs - tatUs) / spacing) + 1), nextGrantAt: nowMs };
}

/**
 * One strongly consistent GetItem of a budget's row: undefined when no take wrote it yet (or TTL dropped it a day
 * after it was full again: a take would find it full). Infrastructure errors propagate.
 */
async function readBudget(db: StoreConnection, ref: BudgetRef): Promise<BudgetState | undefined> {
  const output = await sendGet(db.client, { TableName: db.table.tableName, Key: budgetKey(ref), ConsistentRead: true });
  const row = output.Item;
  if (row === undefined || typeof row.tatUs !== 'number') return undefined;
  const rate = { limit: Number(row.limit), intervalMs: Number(row.intervalMs), burst: Number(row.burst) };
  return {
    provider: ref.provider,
    ...rate,
    ...tokensAt(row.tatUs, rate, db.clock.now()),
    ...(typeof row.updatedAt === 'number' ? { updatedAt: row.updatedAt } : {}),
  };
}

export { type BudgetState, budgetWaiters, readBudget, tokensAt };
