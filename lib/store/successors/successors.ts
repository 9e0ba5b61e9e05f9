import { setTimeout as sleep } from 'node:timers/promises';
import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { OwnershipLostError, PayloadConflictError, TransactionCancelledError } from '../../errors.js';
import { sha256Hex } from '../../hashing.js';
import { formatIdentity } from '../../identity.js';
import type { StepName } from '../../rules.js';
import type { StoreConnection } from '../driver/connection.js';
import { sendGet, sendTransactWrite } from '../driver/plain-requests.js';
import { rowAwaitsBody } from '../payloads/body-binding.js';
import type { PayloadStore } from '../payloads/payloads.js';
import { workItemKey } from '../table.js';
import type { HolderTransition } from '../work-items/requests.js';
import { completeTransition, type ValidOutcome } from '../work-items/transitions.js';
import { type Claim, isWorkItem, type WorkItem } from '../work-items/work-item.js';
import { buildSuccessorTransaction, type NewSuccessor, type SuccessorTransaction } from './successor-requests.js';

/** How a completion with successors was written, and which successor rows it created (the wake-ups to send). */
interface SuccessorCommit {
  /** `transaction`: one TransactWriteItems; `durable_step`: the engine has none (see completeAsDurableStep). */
  readonly mode: 'transaction' | 'durable_step';
  /** Rows this call created; a row that already held the same job (same hash) is a replay, listed in `replayed`. */
  readonly created: readonly WorkItem[];
  readonly replayed: readonly string[];
}

/** What the store lends the successor writer: its connection and its own fenced write and create. */
interface SuccessorWriterPort {
  readonly db: StoreConnection;
  applyFenced(claim: Claim, transition: HolderTransition): Promise<void>;
  enqueue(item: NewSuccessor['item']): Promise<{ outcome: 'created' | 'replay'; item: WorkItem }>;
  recordStep(claim: Claim, stepName: StepName, result: unknown): Promise<unknown>;
}

/** The parent's step that records, under its fence, the successors it is about to write (engines without transactions). */
const SUCCESSORS_STEP = 'lf:successors' as StepName;

/** Sends of one completion when DynamoDB cancels it for contention or throttling (nothing was written). */
const TRANSIENT_SENDS = 5;

const CONDITION_FAILED = 'ConditionalCheckFailed';
const TRANSIENT_CODES = [
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
];

/**
 * Completes the parent and enqueues its successors, each once. With transactions: one TransactWriteItems
 * (buildSuccessorTransaction) conditional on the parent's fence; a successor whose row already holds the same
 * job is a replay and the completion is re-sent without it; a different job there ▶ PayloadConflictError,
 * nothing written; a superseded parent ▶ OwnershipLostError, nothing written. Returns 'unsupported' when the
 * engine has no TransactWriteItems (nothing was written).
 */
async function completeInTransaction(
  port: SuccessorWriterPort,
  claim: Claim,
  outcome: ValidOutcome,
  successors: readonly NewSuccessor[],
  payloads: Pick<PayloadStore, 'putRequest'>,
): Promise<SuccessorCommit | 'unsupported'> {
  const { db } = port;
  const ids = successors.map(({ item }) => item.identity.operationId);
  const now = db.clock.now();
  let pending = [...successors];
  const replayed: string[] = [];
  let transient = 0;
  for (;;) {
    const plan = buildSuccessorTransaction(db.table, claim, outcome, ids, pending, payloads, now);
    try {
      await sendTransactWrite(db.client, plan.request);
      return { mode: 'transaction', created: plan.rows, replayed };
    } catch (error) {
      if ((error as { name?: string }).name === 'UnknownOperationException') return 'unsupported';
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const codes = reasons.map((reason) => reason.Code ?? 'None');
      if (codes[0] === CONDITION_FAILED) {
        await explainParentRefusal(port, claim, outcome, reasons[0]);
        return { mode: 'transaction', created: [], replayed };
      }
      const failed = codes.flatMap((code, index) => (index > 0 && code === CONDITION_FAILED ? [index] : []));
      if (failed.length > 0) {
        const already = await replaysAmong(port, plan, failed);
        replayed.push(...already);
        pending = pending.filter(({ item }) => !already.includes(item.identity.operationId));
        continue;
      }
      const failing = codes.filter((code) => code !== 'None');
      if (
        failing.length > 0 &&
        failing.every((code) => TRANSIENT_CODES.includes(code)) &&
        transient < TRANSIENT_SENDS
      ) {
        transient += 1;
        await sleep(Math.min(1_000, 20 * 2 ** transient) * (0.5 + Math.random()));
        continue;
      }
      throw new TransactionCancelledError(
        `completion with successors cancelled (${failing.join(', ')}); nothing was written`,
        { cause: error, label: 'complete_with_successors', codes: failing },
      );
    }
  }
}

/**
 * The parent refused its completion: my earlier send of it committed (a lost response: the row shows succeeded
 * under my fence with this outcome), or the fence is gone ▶ OwnershipLostError.
 */
async function explainParentRefusal(
  port: SuccessorWriterPort,
  claim: Claim,
  outcome: ValidOutcome,
  reason: CancellationReason | undefined,
): Promise<void> {
  const returned = reason?.Item && Object.keys(reason.Item).length > 0 ? unmarshall(reason.Item) : undefined;
  const current = isWorkItem(returned) ? returned : await readItem(port, claim.identity);
  if (current && completeTransition(outcome, 0).appliedIn(current, claim)) return;
  throw new OwnershipLostError(
    `complete_with_successors rejected: fence ${claim.fence} no longer holds ${formatIdentity(claim.identity)}; no successor was written`,
    current,
    { transition: 'complete', fence: claim.fence, currentFence: current?.fence, currentState: current?.state },
  );
}

/**
 * The successors whose row or body refused the write: a row already holding the same job (type and hash) is a
 * replay (returned); anything else there is another job under that identity ▶ PayloadConflictError.
 */
async function replaysAmong(
  port: SuccessorWriterPort,
  plan: SuccessorTransaction,
  failedIndexes: readonly number[],
): Promise<string[]> {
  const replays = new Set<string>();
  for (const index of failedIndexes) {
    const owner = plan.owners[index - 1];
    if (!owner) continue;
    const { item } = owner.successor;
    const row = await readItem(port, item.identity);
    if (row && row.jobType === item.jobType && row.payloadHash === item.payloadHash) {
      replays.add(item.identity.operationId);
      continue;
    }
    throw new PayloadConflictError(
      `successor ${formatIdentity(item.identity)} already exists as another job (or its payload was stored with another hash); nothing was written`,
      row,
    );
  }
  return [...replays];
}

async function readItem(
  port: SuccessorWriterPort,
  identity: NewSuccessor['item']['identity'],
): Promise<WorkItem | undefined> {
  const { db } = port;
  const output = await sendGet(db.client, {
    TableName: db.table.tableName,
    Key: workItemKey(identity),
    ConsistentRead: true,
  });
  return isWorkItem(output.Item) ? output.Item : undefined;
}

/**
 * Completes the parent and enqueues its successors on an engine without transactions (dynalite), as a durable
 * step: first a fenced step on the parent records the successor set (a superseded parent is refused here and
 * writes nothing), then each successor's row is written by identity (conditional: the same job again is a replay,
 * another job there ▶ PayloadConflictError with nothing written for it) and only then its body, once the row is
 * bound to it (rowAwaitsBody, the carried-body order: a refused successor never writes into another job's payload
 * slot; a crash between the two leaves the row waiting, queued, for the body a takeover's replay stores), then the
 * parent completes under its fence. Promises:
 * no successor is ever written twice and the parent never completes without its successors; NOT that a successor
 * exists only if the parent succeeded: a holder that loses its fence after the step leaves successors behind for
 * a parent that a later holder may end otherwise (a takeover replays them by identity).
 */
async function completeAsDurableStep(
  port: SuccessorWriterPort,
  claim: Claim,
  outcome: ValidOutcome,
  successors: readonly NewSuccessor[],
  payloads: Pick<PayloadStore, 'write' | 'inspect'>,
): Promise<SuccessorCommit> {
  const ids = successors.map(({ item }) => item.identity.operationId);
  const digest = sha256Hex(
    successors.map(({ item }) => `${item.identity.operationId}\u0001${item.payloadHash}`).join('\u0000'),
  );
  await port.recordStep(claim, SUCCESSORS_STEP, { count: successors.length, digest: digest.slice(0, 32) });
  const created: WorkItem[] = [];
  const replayed: string[] = [];
  for (const successor of successors) {
    const { identity, payloadHash } = successor.item;
    // Another body already in the slot (a producer's, whose message has not made its row yet): refused, nothing written.
    const slot = await payloads.inspect(identity);
    if (slot.kind !== 'empty' && slot.payloadHash !== payloadHash) {
      throw new PayloadConflictError(
        `successor ${formatIdentity(identity)} already has another payload stored; nothing more was written`,
        { payloadHash: slot.payloadHash },
      );
    }
    const result = await port.enqueue({ ...successor.item, availableAt: port.db.clock.now() });
    if (result.outcome === 'replay' && result.item.jobType !== successor.item.jobType) {
      throw new PayloadConflictError(
        `successor ${formatIdentity(identity)} already exists as a job of another type; nothing more was written`,
        result.item,
      );
    }
    if (result.outcome === 'created' || rowAwaitsBody(result.item, successor.item))
      await payloads.write(identity, successor.body, payloadHash);
    if (result.outcome === 'created') created.push(result.item);
    else replayed.push(identity.operationId);
  }
  await port.applyFenced(claim, completeTransition(outcome, port.db.clock.now(), ids));
  return { mode: 'durable_step', created, replayed };
}

export {
  completeAsDurableStep,
  completeInTransaction,
  SUCCESSORS_STEP,
  type SuccessorCommit,
  type SuccessorWriterPort,
};
