import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../../hashing.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { TTL_ATTRIBUTE } from '../table.js';

/*
 * Provider budgets as rows of the jobs table: one row per budget (provider and scope), holding the token bucket in
 * its GCRA form, one number: the theoretical arrival time `tatUs` (microseconds). A token is granted when
 * max(tat, now) <= now + tau (tau = (burst - 1) × T, T = intervalMs / limit), and the grant moves tat to
 * max(tat, now) + T. DynamoDB has no max() in an update, so each case is its own conditional UpdateItem: `idle`
 * (tat in the past or no row: tat = now + T) and `busy` (now <= tat <= now + tau: tat = tat + T). A write whose
 * condition fails decides nothing: its fresh row says which case to try, or how long until the next token.
 * Pure request builders.
 */

/** Partition prefix of budget rows: `#` starts no tenant key, so no producer grant reaches it. */
const BUDGET_PARTITION_PREFIX = '#budget#';

/** A budget's numbers: `limit` tokens per `intervalMs`, at most `burst` at once. */
interface BudgetRate {
  readonly limit: number;
  readonly intervalMs: number;
  readonly burst: number;
}

/** Which budget: a provider name and the scope value (`shared`, `tenant:<id>`, `key:<k>`; hashed into the key). */
interface BudgetRef {
  readonly provider: string;
  readonly scope: string;
}

/** Which of the two conditional writes a take sends. */
type BucketCase = 'idle' | 'busy';

/** The spacing T in microseconds, rounded up: the rate granted is never above limit / intervalMs. */
function spacingUs(rate: BudgetRate): number {
  return Math.ceil((rate.intervalMs * 1000) / rate.limit);
}

/** The hashed scope value of a budget (it may be a tenant or a payload's key: never stored as is). */
function scopeHash(ref: BudgetRef): string {
  return sha256Hex(`budget\u0000${ref.scope}`).slice(0, 32);
}

/** The budget row's key; the scope value is hashed. */
function budgetKey(ref: BudgetRef): { pk: string; sk: string } {
  return { pk: `${BUDGET_PARTITION_PREFIX}${ref.provider}`, sk: `scope#${scopeHash(ref)}` };
}

/** The conditional UpdateItem of one case at `nowMs`; the new row comes back. */
function buildTake(
  tableName: string,
  ref: BudgetRef,
  rate: BudgetRate,
  bucket: BucketCase,
  nowMs: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const nowUs = nowMs * 1000;
  const spacing = spacingUs(rate);
  const tat = x.name('tatUs');
  const fields = {
    kind: 'budget',
    provider: ref.provider,
    limit: rate.limit,
    intervalMs: rate.intervalMs,
    burst: rate.burst,
    updatedAt: nowMs,
    // An idle budget's row is dropped a day after it would be full again (where the table has TTL on).
    [TTL_ATTRIBUTE]: Math.ceil((nowMs + rate.intervalMs * rate.burst + 86_400_000) / 1000),
  };
  const next = bucket === 'idle' ? `${tat} = ${x.value(nowUs + spacing)}` : `${tat} = ${tat} + ${x.value(spacing)}`;
  const condition =
    bucket === 'idle'
      ? `attribute_not_exists(${tat}) OR ${tat} < ${x.value(nowUs)}`
      : `${tat} BETWEEN ${x.value(nowUs)} AND ${x.value(nowUs + (rate.burst - 1) * spacing)}`;
  return {
    TableName: tableName,
    Key: budgetKey(ref),
    UpdateExpression: x.update(fields, [], [next]),
    ConditionExpression: condition,
    ExpressionAttributeNames: x.names,
    ExpressionAttributeValues: x.values,
    ReturnValues: 'ALL_NEW',
  };
}

/**
 * What the row as it stands says about a take at `nowMs`: the case that can grant, or the milliseconds until a
 * token (rounded up). Only picks the next write or sizes a wait: the conditional write is what decides.
 */
function nextStep(
  row: Record<string, unknown> | undefined,
  rate: BudgetRate,
  nowMs: number,
): BucketCase | { waitMs: number } {
  const tatUs = typeof row?.tatUs === 'number' ? row.tatUs : undefined;
  const nowUs = nowMs * 1000;
  if (tatUs === undefined || tatUs < nowUs) return 'idle';
  const tauUs = (rate.burst - 1) * spacingUs(rate);
  if (tatUs <= nowUs + tauUs) return 'busy';
  return { waitMs: Math.max(1, Math.ceil((tatUs - tauUs - nowUs) / 1000)) };
}

export {
  BUDGET_PARTITION_PREFIX,
  type BucketCase,
  type BudgetRate,
  type BudgetRef,
  budgetKey,
  buildTake,
  nextStep,
  scopeHash,
  spacingUs,
};
