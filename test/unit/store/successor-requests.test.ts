import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import {
  buildSuccessorTransaction,
  MAX_SUCCESSORS,
  MAX_TRANSACTION_ITEMS,
  type NewSuccessor,
} from '../../../lib/store/successors/successor-requests.js';
import { newWorkItem } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import { claimFixture } from '../../support/claim-fixture.js';

const table = { tableName: 'jobs', deadlineShards: 4 };
const claim = claimFixture({ tenantId: 't1', operationId: 'order-7', fence: 5 });
const payloads = new PayloadStore(undefined as never, 'payloads', new ManualClock(0));

function successor(name: string, body: unknown): NewSuccessor {
  const identity = parseIdentity({ tenantId: 't1', operationId: `order-7/${name}` });
  const item = newWorkItem(
    identity,
    { jobType: 'notify', payloadHash: payloadHash(body), payload: { inline: true } },
    3,
  );
  return { item: { ...item, parentOperationId: 'order-7' }, body };
}

describe('buildSuccessorTransaction', () => {
  it('puts the fenced completion first, then each successor body and row, created only where none exists', () => {
    const list = [successor('email', { to: 'a' }), successor('sms', { to: 'b' })];

    const plan = buildSuccessorTransaction(
      table,
      claim,
      parseJobOutcome({ outcomeCode: 'ok' }),
      ['order-7/email', 'order-7/sms'],
      list,
      payloads,
      1_000,
    );

    const items = plan.request.TransactItems ?? [];
    expect(items).toHaveLength(5);
    const completion = items[0]?.Update;
    expect(completion?.ConditionExpression).toMatch(/^#fence = :v\d+ AND #state = :v\d+$/);
    expect(Object.values(completion?.ExpressionAttributeValues ?? {})).toEqual(
      expect.arrayContaining([5, 'claimed', 'succeeded', ['order-7/email', 'order-7/sms']]),
    );
    expect(items[1]?.Put?.TableName).toBe('payloads');
    expect(items[1]?.Put?.ConditionExpression).toBe(
      'attribute_not_exists(#pk) OR (#hash = :hash AND attribute_not_exists(#erasedAt))',
    );
    expect(items[2]?.Put).toMatchObject({
      TableName: 'jobs',
      Item: { state: 'queued', fence: 0, availableAt: 1_000, deadlineAt: 1_000, parentOperationId: 'order-7' },
    });
    expect(items[2]?.Put?.ConditionExpression).toMatch(/^attribute_not_exists\(#\w+\)$/);
    expect(plan.owners.map((owner) => `${owner.writes}:${owner.successor.item.identity.operationId}`)).toEqual([
      'payload:order-7/email',
      'row:order-7/email',
      'payload:order-7/sms',
      'row:order-7/sms',
    ]);
  });

  it('derives its request token from the claim and the pending set: another set is another request', () => {
    const outcome = parseJobOutcome({ outcomeCode: 'ok' });
    const both = [successor('email', { to: 'a' }), successor('sms', { to: 'b' })];
    const tokenOf = (pending: NewSuccessor[]) =>
      buildSuccessorTransaction(table, claim, outcome, [], pending, payloads, 1).request.ClientRequestToken;

    expect(tokenOf(both)).toBe(tokenOf([...both]));
    expect(tokenOf(both)).not.toBe(tokenOf(both.slice(1)));
    expect(tokenOf(both)).toHaveLength(36);
  });

  it('fits the most successors one completion may enqueue inside the transaction limit', () => {
    const list = Array.from({ length: MAX_SUCCESSORS }, (_, index) => successor(`n${index}`, { index }));

    const plan = buildSuccessorTransaction(table, claim, parseJobOutcome({ outcomeCode: 'ok' }), [], list, payloads, 1);

    expect(plan.request.TransactItems?.length).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
  });
});
