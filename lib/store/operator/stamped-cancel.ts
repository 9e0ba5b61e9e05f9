import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from '../driver/conditional-write.js';
import { sendTransactWrite, type TableClient } from '../driver/plain-requests.js';
import type { TransactItem } from '../work-items/requests.js';

/**
 * A cancel that also stamps the records a job type owns (see lib/fenced/cancel-stamps.ts). Where the engine has
 * transactions the cancel and every stamp commit in one TransactWriteItems (item 0 the work item), so no record
 * write of the cancelled holder can land after the cancel. Otherwise (dynalite lacks TransactWriteItems), or when
 * a record refuses its stamp, the cancel commits alone and the stamps follow, one conditional write each.
 */

/** What the one transaction came to: committed, the work item refused (it changed), or commit it apart. */
type StampedCommit = 'committed' | 'work_item_refused' | 'apart';

/** Sends the cancel and its stamps as one transaction; an SDK retry reuses the token, so a lost response is applied. */
async function commitCancelWithStamps(
  client: TableClient,
  cancel: UpdateCommandInput,
  stamps: readonly TransactItem[],
): Promise<StampedCommit> {
  const { ReturnValues: _returns, ...update } = cancel;
  const work = { ...update, UpdateExpression: update.UpdateExpression ?? '' };
  try {
    await sendTransactWrite(client, {
      ClientRequestToken: randomUUID(),
      TransactItems: [{ Update: work }, ...stamps],
    });
    return 'committed';
  } catch (error) {
    if ((error as { name?: string }).name === 'UnknownOperationException') return 'apart';
    if (!(error instanceof TransactionCanceledException)) throw error;
    const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
    if (codes[0] === 'ConditionalCheckFailed') return 'work_item_refused';
    // A record refused its stamp: it is fenced at or above the cancel already, or by another operation.
    if (codes.includes('ConditionalCheckFailed')) return 'apart';
    throw error;
  }
}

/**
 * Stamps each record after a cancel that committed alone. A refused stamp is left as it is: that record already
 * carries a fence at or above the cancel's (the holder is refused there anyway) or another operation's (the
 * declaration names a record this operation does not own). Other errors propagate; the cancel stands.
 */
async function stampEach(client: TableClient, stamps: readonly TransactItem[]): Promise<void> {
  for (const stamp of stamps) {
    if (stamp.Update === undefined) continue;
    await sendConditional(client, { kind: 'update', ...stamp.Update });
  }
}

export { commitCancelWithStamps, type StampedCommit, stampEach };
