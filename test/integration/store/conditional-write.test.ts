import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendConditional } from '../../../lib/store/driver/conditional-write.js';
import {
  createTestTables,
  engineEndpoints,
  type TestTables,
  testDocumentClient,
  uniqueName,
} from '../../support/engine.js';

/** A class instance: the library's client refuses to store it; a client configured to convert it stores a map. */
class Money {
  constructor(
    readonly amount: number,
    readonly currency: string,
  ) {}
}

describe('sendConditional marshals with the client it is given', () => {
  let tables: TestTables;
  const library = testDocumentClient();
  const converting = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: engineEndpoints().dynamo,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true } },
  );

  beforeAll(async () => {
    tables = await createTestTables('condwrite');
  });
  afterAll(async () => {
    library.destroy();
    converting.destroy();
    await tables.drop();
  });

  const read = async (key: { pk: string; sk: string }) =>
    (await library.send(new GetCommand({ TableName: tables.jobsTable, Key: key, ConsistentRead: true }))).Item;

  it('drops undefined attributes, returns the new item as plain values, and the current item on a failed condition', async () => {
    const key = { pk: uniqueName('pk'), sk: 'row' };
    const put = await sendConditional(library, {
      kind: 'put',
      TableName: tables.jobsTable,
      Item: { ...key, count: 1, note: undefined, tags: ['a'] },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(put.ok).toBe(true);
    expect(await read(key)).toEqual({ ...key, count: 1, tags: ['a'] });
    // That read was a DocumentClient command on the same client: lib-dynamodb then changes the client's shared
    // marshal options (convertTopLevelContainer), which must not turn the next write's key into a map.

    /** Sets count to `next` only if it is `now`. */
    const setCount = (next: number, now: number) =>
      sendConditional(library, {
        kind: 'update',
        TableName: tables.jobsTable,
        Key: key,
        UpdateExpression: 'SET #count = :next',
        ConditionExpression: '#count = :now',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':next': next, ':now': now },
        ReturnValues: 'ALL_NEW',
      });
    expect(await setCount(2, 1)).toEqual({ ok: true, attributes: { ...key, count: 2, tags: ['a'] } });

    expect(await setCount(3, 1)).toEqual({ ok: false, current: { ...key, count: 2, tags: ['a'] } });
  });

  it("applies the client's own settings: a class instance is refused by the library's client, stored as a map by a converting one", async () => {
    const key = { pk: uniqueName('pk'), sk: 'row' };
    const write = {
      kind: 'put' as const,
      TableName: tables.jobsTable,
      Item: { ...key, price: new Money(12, 'EUR') },
      ConditionExpression: 'attribute_not_exists(pk)',
    };

    await expect(sendConditional(library, write)).rejects.toThrow(/class/i);
    expect(await read(key)).toBeUndefined();

    expect((await sendConditional(converting, write)).ok).toBe(true);
    expect(await read(key)).toEqual({ ...key, price: { amount: 12, currency: 'EUR' } });
  });
});
