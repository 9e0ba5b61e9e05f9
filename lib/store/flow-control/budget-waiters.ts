import type { DeleteCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JobIdentity } from '../../identity.js';
import type { StoreConnection } from '../driver/connection.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { sendDeleteReturning, sendUpdate } from '../driver/plain-requests.js';
import { TTL_ATTRIBUTE } from '../table.js';
import { BUDGET_PARTITION_PREFIX, type BudgetRef, scopeHash } from './budget-requests.js';
import { partitionItems } from './slot-usage.js';

/*
 * Jobs waiting on a provider budget (issue #42 item 5), as items beside the budget's row, the way slot waiters sit in
 * their limit's partition: partition `#budget#<provider>`, sort key `wait#<scope hash>#<tenant>#<operation>`. One item
 * per job and budget, written when the job goes back to queued to wait for the budget (the first wait's start kept
 * across its re-waits) and deleted when it is granted a token after waiting (the delete returns that start: how long
 * it waited). For counting and measuring only: no decision reads them. An item whose job ended otherwise, or came
 * back through a producer's resend rather than its wake-up, stays counted until its TTL (a day after it was due).
 */

const WAITER_PREFIX = 'wait#';
const WAITER_TTL_SECONDS = 86_400;

/** Key of a job's waiter item of one budget. */
function budgetWaiterKey(ref: BudgetRef, identity: JobIdentity): { pk: string; sk: string } {
  return {
    pk: `${BUDGET_PARTITION_PREFIX}${ref.provider}`,
    sk: `${WAITER_PREFIX}${scopeHash(ref)}#${identity.tenantId}#${identity.operationId}`,
  };
}

/** Records (or refreshes) a job's wait on a budget, due again in `waitMs`; the wait's first start comes back. */
function buildWaitUpdate(
  tableName: string,
  wait: { ref: BudgetRef; identity: JobIdentity; jobType: string; waitMs: number },
  now: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const since = x.name('waitingSince');
  const fields = {
    kind: 'budget_waiter',
    jobType: wait.jobType,
    dueAt: now + wait.waitMs,
    [TTL_ATTRIBUTE]: Math.ceil((now + wait.waitMs) / 1000) + WAITER_TTL_SECONDS,
  };
  return {
    TableName: tableName,
    Key: budgetWaiterKey(wait.ref, wait.identity),
    UpdateExpression: x.update(fields, [], [`${since} = if_not_exists(${since}, ${x.value(now)})`]),
    ...x.attributes(),
    ReturnValues: 'ALL_NEW',
  };
}

/** Removes a job's waiter item of a budget, returning it (absent: the job was not recorded as waiting). */
function buildWaitDelete(tableName: string, ref: BudgetRef, identity: JobIdentity): DeleteCommandInput {
  return { TableName: tableName, Key: budgetWaiterKey(ref, identity), ReturnValues: 'ALL_OLD' };
}

/** Records a job as waiting on a budget for `waitMs` (one UpdateItem, ≤ 1 WRU); returns when its wait began. */
async function recordBudgetWait(
  db: StoreConnection,
  wait: { ref: BudgetRef; identity: JobIdentity; jobType: string; waitMs: number },
): Promise<number> {
  const now = db.clock.now();
  const { Attributes } = await sendUpdate(db.client, buildWaitUpdate(db.table.tableName, wait, now));
  return typeof Attributes?.waitingSince === 'number' ? Attributes.waitingSince : now;
}

/**
 * Forgets a job's wait on a budget once it holds a token (one DeleteItem, ≤ 1 WRU): when its wait began, or undefined
 * when it was not recorded as waiting.
 */
async function forgetBudgetWait(
  db: StoreConnection,
  ref: BudgetRef,
  identity: JobIdentity,
): Promise<number | undefined> {
  const old = await sendDeleteReturning(db.client, buildWaitDelete(db.table.tableName, ref, identity));
  return typeof old?.waitingSince === 'number' ? old.waitingSince : undefined;
}

/** Jobs recorded as waiting on a budget and the oldest wait's start (strongly consistent Query pages, never a Scan). */
async function budgetWaiters(
  db: StoreConnection,
  ref: BudgetRef,
): Promise<{ waiting: number; oldestWaitingSince?: number }> {
  const partition = `${BUDGET_PARTITION_PREFIX}${ref.provider}`;
  const items = await partitionItems(db, partition, `${WAITER_PREFIX}${scopeHash(ref)}#`);
  // A loop, not Math.min(...starts): a flood of waiters would pass more arguments than a call can take.
  let oldest: number | undefined;
  for (const { waitingSince } of items) {
    if (typeof waitingSince === 'number' && (oldest === undefined || waitingSince < oldest)) oldest = waitingSince;
  }
  return { waiting: items.length, ...(oldest !== undefined ? { oldestWaitingSince: oldest } : {}) };
}

export { budgetWaiterKey, budgetWaiters, forgetBudgetWait, recordBudgetWait };
