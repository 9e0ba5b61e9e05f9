import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { classifyRequest, tablesOf } from '../../../infra/testing/request-log.js';

const WORK = 'jobs';
const key = marshall({ pk: 'order#t#1', sk: 'order' });

describe('classifyRequest: which writes take the fenced path', () => {
  it('a conditional write carrying writer_epoch (by placeholder name) is fenced; its key is read', () => {
    const { writes, workTable } = classifyRequest(
      'UpdateItem',
      {
        TableName: 'orders',
        Key: key,
        ConditionExpression: '(attribute_not_exists(#n0) OR #n0 < :v0) AND #n1 = :v1',
        ExpressionAttributeNames: { '#n0': 'writer_epoch', '#n1': 'status' },
      },
      WORK,
    );
    expect(workTable).toBe(false);
    expect(writes).toEqual([{ table: 'orders', key: { pk: 'order#t#1', sk: 'order' }, item: undefined, fenced: true }]);
  });

  it('a write without the fence is unfenced, even with another condition or an attribute merely named like it', () => {
    const plain = classifyRequest('PutItem', { TableName: 'orders', Item: key }, WORK);
    const other = classifyRequest(
      'DeleteItem',
      { TableName: 'orders', Key: key, ConditionExpression: 'attribute_exists(pk) AND writer_epoch_copy = :v' },
      WORK,
    );
    expect(plain.writes[0]).toMatchObject({ table: 'orders', fenced: false, item: { pk: 'order#t#1' } });
    expect(other.writes[0]?.fenced).toBe(false);
  });

  it("the work table's own writes are the library's transitions, not target writes", () => {
    expect(classifyRequest('UpdateItem', { TableName: WORK, Key: key }, WORK)).toEqual({ writes: [], workTable: true });
    expect(classifyRequest('GetItem', { TableName: 'orders', Key: key }, WORK)).toEqual({
      writes: [],
      workTable: false,
    });
  });

  it('a transaction fenced on the work item fences every write in it; without that each write stands alone', () => {
    const items = [
      {
        Update: {
          TableName: 'stock',
          Key: key,
          UpdateExpression: 'ADD #a :d',
          ExpressionAttributeNames: { '#a': 'n' },
        },
      },
      {
        Update: {
          TableName: WORK,
          Key: key,
          ConditionExpression: '#f = :mine AND #s = :claimed',
          ExpressionAttributeNames: { '#f': 'fence', '#s': 'state' },
        },
      },
    ];
    const fenced = classifyRequest('TransactWriteItems', { TransactItems: items }, WORK);
    expect(fenced.writes).toEqual([expect.objectContaining({ table: 'stock', fenced: true })]);
    expect(fenced.workTable).toBe(true);
    const alone = classifyRequest('TransactWriteItems', { TransactItems: [items[0]] }, WORK);
    expect(alone.writes).toEqual([expect.objectContaining({ table: 'stock', fenced: false })]);
  });

  it('BatchWriteItem and PartiQL writes carry no condition: unfenced, named by table', () => {
    const batch = classifyRequest('BatchWriteItem', { RequestItems: { orders: [], [WORK]: [] } }, WORK);
    expect(batch.writes).toEqual([{ table: 'orders', key: undefined, item: undefined, fenced: false }]);
    const partiql = classifyRequest('ExecuteStatement', { Statement: 'UPDATE "orders" SET s = 1 WHERE pk = ?' }, WORK);
    expect(partiql.writes).toEqual([{ table: 'orders', key: undefined, item: undefined, fenced: false }]);
    expect(classifyRequest('ExecuteStatement', { Statement: 'SELECT * FROM "orders"' }, WORK).writes).toEqual([]);
  });

  it("the payloads table is the library's: its writes are not the job's", () => {
    expect(classifyRequest('PutItem', { TableName: 'payloads', Item: key }, WORK, ['payloads']).writes).toEqual([]);
    expect(classifyRequest('PutItem', { TableName: 'orders', Item: key }, WORK, ['payloads']).writes).toHaveLength(1);
  });
});

describe('tablesOf: every table a request names, reads included', () => {
  it('single items, batches, transactions and PartiQL', () => {
    expect(tablesOf('GetItem', { TableName: 'orders', Key: key })).toEqual(['orders']);
    expect(tablesOf('BatchGetItem', { RequestItems: { orders: {}, stock: {} } })).toEqual(['orders', 'stock']);
    const transaction = { TransactItems: [{ Put: { TableName: 'orders' } }, { ConditionCheck: { TableName: WORK } }] };
    expect(tablesOf('TransactWriteItems', transaction)).toEqual(['orders', WORK]);
    expect(tablesOf('ExecuteStatement', { Statement: 'SELECT * FROM "ledger" WHERE pk = ?' })).toEqual(['ledger']);
  });
});
