import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import {
  BusinessConditionError,
  CapabilityMissingError,
  InvalidInputError,
  LeasefenceError,
  OwnershipLostError,
} from '../../../lib/errors.js';
import { interpretCancellation } from '../../../lib/fenced/cancellation.js';
import { FencedTransactions } from '../../../lib/fenced/transaction.js';
import {
  buildCompletionTransaction,
  buildStepTransaction,
  parseSharedWrites,
  type SharedWrite,
  transactionToken,
} from '../../../lib/fenced/transaction-requests.js';
import { workItemKey } from '../../../lib/store/table.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { buildFencedTransaction, buildFencedUpdate } from '../../../lib/store/work-items/requests.js';
import { completeTransition } from '../../../lib/store/work-items/transitions.js';
import type { Claim, WorkItem } from '../../../lib/store/work-items/work-item.js';
import { claimedItem, claimFixture } from '../../support/claim-fixture.js';

const table = { tableName: 'jobs', deadlineShards: 8 };
/** Where a claim's work item is in `table` (what the store's workItemLocation answers). */
const workItemOf = (claim: Claim) => ({ tableName: table.tableName, key: workItemKey(claim.identity) });
const decrement: SharedWrite = {
  kind: 'update',
  tableName: 'inventory',
  key: { sku: 'sku-1' },
  add: { count: -1 },
  where: { count: { ge: 1 } },
};

describe('fenced transaction requests (exact DynamoDB requests)', () => {
  it('a step is the business write plus MY work item: fence = mine AND claimed AND step not yet recorded', () => {
    // prepare
    const claim = claimFixture({ fence: 3 });
    // act
    const plan = buildStepTransaction(claim, { name: 'reserve', result: { reserved: 1 } }, [decrement], 1_000);
    // assert: the request the store commits
    expect(buildFencedTransaction(table, claim, plan)).toEqual({
      ClientRequestToken: transactionToken(claim, 'step:reserve'),
      TransactItems: [
        {
          Update: {
            TableName: 'jobs',
            Key: workItemKey({ tenantId: 't1', operationId: 'settle-m_4471' }),
            UpdateExpression: 'SET #updatedAt = :v2, #steps.#reserve = :v1',
            ConditionExpression: '#fence = :v3 AND #state = :v4 AND attribute_not_exists(#steps.#reserve)',
            ExpressionAttributeNames: {
              '#updatedAt': 'updatedAt',
              '#steps': 'steps',
              '#reserve': 'reserve',
              '#fence': 'fence',
              '#state': 'state',
            },
            ExpressionAttributeValues: {
              ':v1': { fence: 3, at: 1_000, result: { reserved: 1 } },
              ':v2': 1_000,
              ':v3': 3,
              ':v4': 'claimed',
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Update: {
            TableName: 'inventory',
            Key: { sku: 'sku-1' },
            UpdateExpression: 'ADD #count :v2',
            ConditionExpression: '#count >= :v1',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':v1': 1, ':v2': -1 },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });
  });

  it('a completion transaction reuses the completion transition as its work-item update', () => {
    const claim = claimFixture({ fence: 2 });
    const outcome = { outcomeCode: 'reserved' };
    const plan = buildCompletionTransaction(claim, outcome, [decrement], 5);
    const input = buildFencedTransaction(table, claim, plan);
    expect(input.TransactItems?.[0]).toEqual({
      Update: buildFencedUpdate(table, claim, completeTransition(outcome, 5)),
    });
    expect(input.ClientRequestToken).toBe(transactionToken(claim, 'complete'));
  });

  it('renders put and condition-check writes', () => {
    const claim = claimFixture();
    const plan = buildStepTransaction(
      claim,
      { name: 'ledger', result: undefined },
      [
        { kind: 'put', tableName: 'ledger', key: { id: 'e1' }, item: { amount: 5 }, where: { id: { exists: false } } },
        { kind: 'check', tableName: 'accounts', key: { id: 'a1' }, where: { open: true } },
      ],
      1,
    );
    expect(buildFencedTransaction(table, claim, plan).TransactItems?.slice(1)).toEqual([
      {
        Put: {
          TableName: 'ledger',
          Item: { amount: 5, id: 'e1' },
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': 'id' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        ConditionCheck: {
          TableName: 'accounts',
          Key: { id: 'a1' },
          ConditionExpression: '#open = :v1',
          ExpressionAttributeNames: { '#open': 'open' },
          ExpressionAttributeValues: { ':v1': true },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ]);
  });

  it('the request token is stable for (identity, fence, step) and changes with any of them', () => {
    const claim = claimFixture({ fence: 3 });
    const token = transactionToken(claim, 'step:reserve');
    expect(token).toHaveLength(36);
    expect(transactionToken(claimFixture({ fence: 3, claimId: 'other' }), 'step:reserve')).toBe(token);
    expect(transactionToken(claimFixture({ fence: 4 }), 'step:reserve')).not.toBe(token);
    expect(transactionToken(claim, 'step:release')).not.toBe(token);
    expect(transactionToken(claimFixture({ tenantId: 't2' }), 'step:reserve')).not.toBe(token);
  });

  it.each([
    [
      'the same record twice (key order differs)',
      [decrement, { ...decrement, key: { sku: 'sku-1' }, add: { count: 1 } }],
    ],
    [
      'the work item itself',
      [
        {
          kind: 'update',
          tableName: 'jobs',
          key: workItemKey({ tenantId: 't1', operationId: 'settle-m_4471' }),
          set: { note: 'x' },
        },
      ],
    ],
    ['an update that changes nothing', [{ kind: 'update', tableName: 'inventory', key: { sku: 'a' } }]],
    ['a check without a condition', [{ kind: 'check', tableName: 'inventory', key: { sku: 'a' }, where: {} }]],
    ['more than 99 writes', Array.from({ length: 100 }, (_, i) => ({ ...decrement, key: { sku: `s${i}` } }))],
  ])('refuses %s with InvalidInputError', (_label, writes) => {
    expect(() => parseSharedWrites(workItemOf(claimFixture()), writes)).toThrow(InvalidInputError);
  });

  it('refuses a delete, naming it and why: the deployed worker has no DeleteItem', () => {
    const writes = [decrement, { kind: 'delete', tableName: 'holds', key: { id: 'h1' } }];
    const refused = (() => {
      try {
        parseSharedWrites(workItemOf(claimFixture()), writes);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).issues).toEqual([
      { path: '1.kind', message: expect.stringMatching(/may not delete .*no DeleteItem/) },
    ]);
  });

  it('names the clash when an item appears twice', () => {
    expect(() => parseSharedWrites(workItemOf(claimFixture()), [decrement, decrement])).toThrow(
      /1: touches the same item as write 0; one transaction may not touch an item twice/,
    );
  });
});

describe('reading CancellationReasons', () => {
  const failed = (item?: Record<string, unknown>) => ({
    Code: 'ConditionalCheckFailed',
    ...(item ? { Item: marshall(item) } : {}),
  });

  it('the work item outranks business conditions', () => {
    expect(interpretCancellation([failed({ fence: 9 }), failed()])).toEqual({ kind: 'work_item', item: { fence: 9 } });
  });

  it('a business condition names its write (index without the work item)', () => {
    expect(interpretCancellation([{ Code: 'None' }, { Code: 'None' }, failed({ count: 0 })])).toEqual({
      kind: 'business',
      index: 1,
      item: { count: 0 },
    });
  });

  it('conflicts and throttling are transient; anything else is not', () => {
    expect(interpretCancellation([{ Code: 'None' }, { Code: 'TransactionConflict' }]).kind).toBe('transient');
    expect(interpretCancellation([{ Code: 'ValidationError' }, { Code: 'None' }])).toEqual({
      kind: 'other',
      codes: ['ValidationError'],
    });
  });
});

/** A client whose TransactWriteItems answers come from a script, one per send. */
function scriptedClient(answers: Array<() => unknown>): { client: DynamoDBDocumentClient; sent: string[] } {
  const sent: string[] = [];
  const client = {
    send: async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      const next = answers.shift();
      if (!next) throw new Error('unexpected request');
      return next();
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
}

function cancelled(reasons: Array<{ Code: string; Item?: object }>): TransactionCanceledException {
  return new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: reasons.map((reason) => ({
      Code: reason.Code,
      ...(reason.Item ? { Item: marshall(reason.Item as Record<string, unknown>) } : {}),
    })),
  });
}

/** A store on the scripted client whose read-back of the work item finds `current` (no GetItem to script). */
function storeOn(client: DynamoDBDocumentClient, current?: WorkItem): WorkItemStore {
  const store = new WorkItemStore({
    client,
    tableName: table.tableName,
    deadlineShards: table.deadlineShards,
    clock: new ManualClock(),
  });
  store.get = async () => current;
  return store;
}

function transactions(
  client: DynamoDBDocumentClient,
  current?: WorkItem,
  onOwnershipLost?: (e: OwnershipLostError) => void,
) {
  return new FencedTransactions({
    store: storeOn(client, current),
    client,
    claim: claimFixture({ fence: 3 }),
    ...(onOwnershipLost ? { onOwnershipLost } : {}),
  });
}

describe('FencedTransactions error mapping', () => {
  it('an engine without TransactWriteItems is CapabilityMissingError', async () => {
    const unknown = Object.assign(new Error('UnknownError'), { name: 'UnknownOperationException' });
    const { client } = scriptedClient([() => Promise.reject(unknown)]);
    await expect(transactions(client).runStep('reserve', [decrement])).rejects.toBeInstanceOf(CapabilityMissingError);
  });

  it('the work item under a newer fence is OwnershipLostError, reported once to the callback', async () => {
    const newer = claimedItem({ fence: 4 });
    const { client, sent } = scriptedClient([
      () => Promise.reject(cancelled([{ Code: 'ConditionalCheckFailed', Item: newer }, { Code: 'None' }])),
    ]);
    const lost: OwnershipLostError[] = [];
    const tx = transactions(client, newer, (error) => lost.push(error));
    await expect(tx.runStep('reserve', [decrement])).rejects.toBeInstanceOf(OwnershipLostError);
    await expect(tx.runStep('release', [decrement])).rejects.toBeInstanceOf(OwnershipLostError);
    expect(lost).toHaveLength(1);
    expect(sent).toEqual(['TransactWriteItemsCommand']);
  });

  it('the step already recorded under my fence is applied (a retried send whose first try committed)', async () => {
    const landed = claimedItem({ fence: 3, steps: { reserve: { fence: 3, at: 1, result: null } } });
    const { client } = scriptedClient([
      () => Promise.reject(cancelled([{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }])),
    ]);
    await expect(transactions(client, landed).runStep('reserve', [decrement])).resolves.toMatchObject({
      status: 'already_applied',
    });
  });

  it('a business condition failure is BusinessConditionError naming the write and the unmet attribute', async () => {
    const { client } = scriptedClient([
      () =>
        Promise.reject(
          cancelled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: { sku: 'sku-1', count: 0 } }]),
        ),
    ]);
    const step = transactions(client).runStep('reserve', [decrement]);
    await expect(step).rejects.toBeInstanceOf(BusinessConditionError);
    await expect(step).rejects.toMatchObject({ index: 0, tableName: 'inventory', unmet: ['count'] });
  });

  it('a conflict is sent again; other cancellations are rethrown with their codes', async () => {
    const conflict = () => Promise.reject(cancelled([{ Code: 'None' }, { Code: 'TransactionConflict' }]));
    const retried = scriptedClient([conflict, () => Promise.resolve({})]);
    await expect(transactions(retried.client).runStep('reserve', [decrement])).resolves.toMatchObject({
      status: 'applied',
    });
    expect(retried.sent).toHaveLength(2);
    const invalid = scriptedClient([() => Promise.reject(cancelled([{ Code: 'ValidationError' }, { Code: 'None' }]))]);
    const step = transactions(invalid.client).runStep('reserve', [decrement]);
    await expect(step).rejects.toBeInstanceOf(LeasefenceError);
    await expect(step).rejects.toMatchObject({
      code: 'transaction.cancelled',
      codes: ['ValidationError'],
    });
  });

  it('a reused request token is applied when my step landed, else an explicit error (not lost ownership)', async () => {
    const mismatch = () =>
      Promise.reject(Object.assign(new Error('token reused'), { name: 'IdempotentParameterMismatchException' }));
    const landed = claimedItem({ fence: 3, steps: { reserve: { fence: 3, at: 1, result: null } } });
    const applied = scriptedClient([mismatch]);
    await expect(transactions(applied.client, landed).runStep('reserve', [decrement])).resolves.toMatchObject({
      status: 'already_applied',
    });
    const reused = scriptedClient([mismatch]);
    const step = transactions(reused.client, claimedItem({ fence: 3 })).runStep('reserve', [decrement]);
    await expect(step).rejects.toMatchObject({ code: 'transaction.token_reused' });
  });

  it('a step or completion with a delete sends nothing', async () => {
    const { client, sent } = scriptedClient([]);
    const remove = { kind: 'delete', tableName: 'holds', key: { id: 'h1' } } as unknown as SharedWrite;
    const tx = transactions(client, claimedItem({ fence: 3 }));
    await expect(tx.runStep('release', [remove])).rejects.toBeInstanceOf(InvalidInputError);
    await expect(tx.complete({ outcomeCode: 'released' }, [remove])).rejects.toBeInstanceOf(InvalidInputError);
    expect(sent).toEqual([]);
  });

  it('a step recorded in the claim is skipped without a request', async () => {
    const { client, sent } = scriptedClient([]);
    const claim = claimFixture({ fence: 4, steps: { reserve: { fence: 3, at: 1, result: { reserved: 1 } } } });
    const tx = new FencedTransactions({ store: storeOn(client), client, claim });
    await expect(tx.runStep('reserve', [decrement])).resolves.toMatchObject({
      status: 'skipped',
      result: { reserved: 1 },
    });
    expect(sent).toEqual([]);
  });
});
