import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../../hashing.js';
import type { PayloadStore } from '../payloads/payloads.js';
import {
  buildCreateRequest,
  buildFencedTransaction,
  type TableContext,
  type TransactItem,
} from '../work-items/requests.js';
import type { NewWorkItem } from '../work-items/schemas.js';
import { completeTransition, type ValidOutcome } from '../work-items/transitions.js';
import type { Claim, WorkItem } from '../work-items/work-item.js';

/**
 * A successor as the store writes it: its new work item (queued, the parent's tenant, `parentOperationId` set,
 * payload inline) and the body its `payloadHash` was computed from. Built by the worker from what the job asked.
 */
interface NewSuccessor {
  readonly item: NewWorkItem;
  readonly body: unknown;
}

/** What transaction item i + 1 (item 0 is the parent) writes: a successor's row or its payload body. */
interface SuccessorItemOwner {
  readonly successor: NewSuccessor;
  readonly writes: 'row' | 'payload';
}

/** A built completion-with-successors transaction: the request, who owns each item, and the rows it creates. */
interface SuccessorTransaction {
  readonly request: TransactWriteCommandInput & { ClientRequestToken: string };
  /** Owner of TransactItems[i + 1]. */
  readonly owners: readonly SuccessorItemOwner[];
  readonly rows: readonly WorkItem[];
}

/** Items a transaction takes at most (DynamoDB's TransactWriteItems limit). */
const MAX_TRANSACTION_ITEMS = 100;

/** Transaction items one successor costs: its row, and its payload body (always inline). */
const ITEMS_PER_SUCCESSOR = 2;

/**
 * Successors one completion may enqueue: the parent's completion is one item, each successor two (row and body),
 * so 49 fill 99 of DynamoDB's 100 items. A job that asks for more is refused before anything is written.
 */
const MAX_SUCCESSORS = Math.floor((MAX_TRANSACTION_ITEMS - 1) / ITEMS_PER_SUCCESSOR);

/**
 * Request token of one claim's completion with this set of successors (identity, fence, outcome code, each
 * successor's id and hash): a re-send after a lost response is deduplicated by DynamoDB; another set is another request.
 */
function successorTransactionToken(claim: Claim, outcome: ValidOutcome, pending: readonly NewSuccessor[]): string {
  const { tenantId, operationId } = claim.identity;
  const parts = pending.map(({ item }) => `${item.identity.operationId}\u0001${item.payloadHash}`).join('\u0000');
  return sha256Hex(
    `leasefence-successors\u0000${tenantId}\u0000${operationId}\u0000${claim.fence}\u0000${outcome.outcomeCode}\u0000${parts}`,
  ).slice(0, 36);
}

/**
 * The completion that enqueues successors, as one TransactWriteItems: item 0 is the parent's completion under
 * its fence (buildFencedTransaction: `fence = mine AND state = claimed`) listing every successor id, then each
 * pending successor's body (PayloadStore.putRequest) and row (`attribute_not_exists`, queued, due at `now`).
 * So a superseded parent writes no successor, and a successor row exists only if that completion committed. Pure.
 */
function buildSuccessorTransaction(
  table: TableContext,
  claim: Claim,
  outcome: ValidOutcome,
  successorIds: readonly string[],
  pending: readonly NewSuccessor[],
  payloads: Pick<PayloadStore, 'putRequest'>,
  now: number,
): SuccessorTransaction {
  const items: TransactItem[] = [];
  const owners: SuccessorItemOwner[] = [];
  const rows: WorkItem[] = [];
  for (const successor of pending) {
    const { identity, payloadHash } = successor.item;
    items.push({ Put: payloads.putRequest(identity, successor.body, payloadHash) });
    owners.push({ successor, writes: 'payload' });
    const row = buildCreateRequest(table, { ...successor.item, availableAt: now }, now);
    items.push({ Put: row });
    owners.push({ successor, writes: 'row' });
    rows.push(row.Item);
  }
  const request = buildFencedTransaction(table, claim, {
    transition: completeTransition(outcome, now, successorIds),
    items,
    token: successorTransactionToken(claim, outcome, pending),
  });
  return { request, owners, rows };
}

export {
  buildSuccessorTransaction,
  ITEMS_PER_SUCCESSOR,
  MAX_SUCCESSORS,
  MAX_TRANSACTION_ITEMS,
  type NewSuccessor,
  type SuccessorItemOwner,
  type SuccessorTransaction,
  successorTransactionToken,
};
