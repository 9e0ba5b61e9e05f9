import { Readable } from 'node:stream';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { clientConfig, MARSHALL_OPTIONS } from '../../../lib/aws-clients.js';
import { sendConditional } from '../../../lib/store/driver/conditional-write.js';
import {
  sendDelete,
  sendGet,
  sendPut,
  sendQuery,
  sendScan,
  sendTransactWrite,
  sendUpdate,
  type TableClient,
} from '../../../lib/store/driver/plain-requests.js';

/** What left the client: the operation and the JSON body, as the network would see them. */
interface SentRequest {
  target: string;
  body: unknown;
}

const OPTIONS = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDPLAINTEST', secretAccessKey: 'secret' } };

/**
 * A request handler, given through the SDK's documented `requestHandler` option, that records each request and
 * answers `answer` (a low-level JSON response, status 200 unless given): nothing leaves the machine.
 */
function recorder(answer: unknown, statusCode: number) {
  const sent: SentRequest[] = [];
  const requestHandler = {
    handle: async (request: { headers: Record<string, string>; body: string | Uint8Array }) => {
      sent.push({
        target: request.headers['x-amz-target'] ?? '',
        body: JSON.parse(Buffer.from(request.body).toString('utf8')),
      });
      return {
        response: {
          statusCode,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from(JSON.stringify(answer))]),
        },
      };
    },
  };
  return { sent, requestHandler };
}

/** A plain client as createPlainClient builds it (clientConfig), answered by a recorder. */
function plainClient(answer: unknown = {}, statusCode = 200) {
  const { sent, requestHandler } = recorder(answer, statusCode);
  const client = new DynamoDBClient({ ...clientConfig({ ...OPTIONS, maxAttempts: 1 }), requestHandler });
  return { client, sent };
}

/** A DocumentClient as createDocumentClient builds it (MARSHALL_OPTIONS unless given), answered by a recorder. */
function documentClient(answer: unknown = {}, statusCode = 200, marshallOptions: marshallOptions = MARSHALL_OPTIONS) {
  const { client: plain, sent } = plainClient(answer, statusCode);
  const client = DynamoDBDocumentClient.from(plain, { marshallOptions: { ...marshallOptions } });
  return { client, sent };
}

/** Values of every kind the store writes, with an undefined attribute the client's options drop. */
const ITEM = {
  pk: 'tenant#a',
  sk: 'op#1',
  fence: 3,
  ratio: 0.25,
  done: false,
  nothing: null,
  dropped: undefined,
  steps: { reserve: { fence: 3, at: 1_700_000_000_000, result: { ids: ['x', 'y'] } } },
  list: [1, 'two', { three: 3 }],
};
const KEY = { pk: 'tenant#a', sk: 'op#1' };
const VALUES = { ':fence': 3, ':state': 'claimed', ':gone': undefined, ':map': { a: [1] } };

/** An attribute map of ITEM as the engine would return it. */
const STORED = {
  pk: { S: 'tenant#a' },
  sk: { S: 'op#1' },
  fence: { N: '3' },
  ratio: { N: '0.25' },
  done: { BOOL: false },
  nothing: { NULL: true },
  steps: { M: { reserve: { M: { fence: { N: '3' }, at: { N: '1700000000000' } } } } },
  list: { L: [{ N: '1' }, { S: 'two' }, { M: { three: { N: '3' } } }] },
};

/** The request a DocumentClient command sends, and the ones the helper sends through both client kinds. */
async function requestsOf(
  command: (client: DynamoDBDocumentClient) => Promise<unknown>,
  helper: (client: TableClient) => Promise<unknown>,
) {
  const reference = documentClient();
  await command(reference.client);
  const viaDocument = documentClient();
  await helper(viaDocument.client);
  const viaPlain = plainClient();
  await helper(viaPlain.client);
  return { reference: reference.sent, viaDocument: viaDocument.sent, viaPlain: viaPlain.sent };
}

describe('the store’s plain requests: the bytes a DocumentClient command sends, through either client', () => {
  const cases: Array<[string, (c: DynamoDBDocumentClient) => Promise<unknown>, (c: TableClient) => Promise<unknown>]> =
    [
      [
        'GetItem',
        (c) => c.send(new GetCommand({ TableName: 'jobs', Key: KEY, ConsistentRead: true })),
        (c) => sendGet(c, { TableName: 'jobs', Key: KEY, ConsistentRead: true }),
      ],
      ['Query', (c) => c.send(new QueryCommand(queryInput())), (c) => sendQuery(c, queryInput())],
      ['Scan', (c) => c.send(new ScanCommand(scanInput())), (c) => sendScan(c, scanInput())],
      ['PutItem', (c) => c.send(new PutCommand(putInput())), (c) => sendPut(c, putInput())],
      ['UpdateItem', (c) => c.send(new UpdateCommand(updateInput())), (c) => sendUpdate(c, updateInput())],
      ['DeleteItem', (c) => c.send(new DeleteCommand(deleteInput())), (c) => sendDelete(c, deleteInput())],
      [
        'TransactWriteItems',
        (c) => c.send(new TransactWriteCommand(transactInput())),
        (c) => sendTransactWrite(c, transactInput()),
      ],
    ];

  it.each(cases)('%s', async (operation, command, helper) => {
    const { reference, viaDocument, viaPlain } = await requestsOf(command, helper);
    expect(reference).toEqual([{ target: `DynamoDB_20120810.${operation}`, body: expect.any(Object) }]);
    expect(viaDocument).toEqual(reference);
    expect(viaPlain).toEqual(reference);
  });

  it('a conditional write sends the same PutItem and UpdateItem through a plain client as through a DocumentClient', async () => {
    for (const kind of ['put', 'update'] as const) {
      const request =
        kind === 'put' ? { kind, ...putInput() } : { kind, ...updateInput(), ReturnValues: 'ALL_NEW' as const };
      const viaDocument = documentClient();
      const viaPlain = plainClient();
      await sendConditional(viaDocument.client, request);
      await sendConditional(viaPlain.client, request);
      expect(viaPlain.sent).toEqual(viaDocument.sent);
    }
  });

  it('a DocumentClient’s own marshall options are honoured: without removeUndefinedValues a nested undefined is refused', async () => {
    const strict = () => documentClient({}, 200, {});
    const reference = strict();
    const viaHelper = strict();
    // Top-level undefined values are left out by the command, whatever the options: the same request.
    await reference.client.send(new PutCommand(putInput()));
    await sendPut(viaHelper.client, putInput());
    expect(viaHelper.sent).toEqual(reference.sent);
    const nested = { ...putInput(), Item: { ...KEY, inner: { gone: undefined } } };
    await expect(reference.client.send(new PutCommand(nested))).rejects.toThrow(/removeUndefinedValues/);
    await expect(sendPut(viaHelper.client, nested)).rejects.toThrow(/removeUndefinedValues/);
    await expect(sendConditional(viaHelper.client, { kind: 'put', ...nested })).rejects.toThrow(
      /removeUndefinedValues/,
    );
    expect(viaHelper.sent).toHaveLength(1);
  });
});

describe('the store’s plain reads: the results a DocumentClient command returns, through either client', () => {
  it('GetItem: the item as plain values (numbers as numbers), or none', async () => {
    const expected = await documentClient({ Item: STORED }).client.send(
      new GetCommand({ TableName: 'jobs', Key: KEY }),
    );
    for (const { client } of [documentClient({ Item: STORED }), plainClient({ Item: STORED })]) {
      const got = await sendGet(client, { TableName: 'jobs', Key: KEY });
      expect(got.Item).toEqual(expected.Item);
      expect(got.Item?.fence).toBe(3);
    }
    expect((await sendGet(plainClient({}).client, { TableName: 'jobs', Key: KEY })).Item).toBeUndefined();
  });

  it('Query and Scan: items, count, consumed capacity and where the page stopped', async () => {
    const answer = {
      Items: [STORED, { pk: { S: 'tenant#b' }, sk: { S: 'op#2' } }],
      Count: 2,
      ScannedCount: 5,
      LastEvaluatedKey: { pk: { S: 'tenant#b' }, sk: { S: 'op#2' } },
      ConsumedCapacity: { TableName: 'jobs', CapacityUnits: 1.5 },
    };
    const query = await documentClient(answer).client.send(new QueryCommand(queryInput()));
    const scan = await documentClient(answer).client.send(new ScanCommand(scanInput()));
    for (const make of [documentClient, plainClient]) {
      const { $metadata: _q, ...gotQuery } = await sendQuery(make(answer).client, queryInput());
      const { $metadata: _s, ...gotScan } = await sendScan(make(answer).client, scanInput());
      const { $metadata: _rq, ...wantQuery } = query;
      const { $metadata: _rs, ...wantScan } = scan;
      expect(gotQuery).toEqual(wantQuery);
      expect(gotScan).toEqual(wantScan);
    }
  });

  it('UpdateItem: the attributes it returned', async () => {
    const answer = { Attributes: STORED };
    const expected = await documentClient(answer).client.send(new UpdateCommand(updateInput()));
    for (const make of [documentClient, plainClient]) {
      expect((await sendUpdate(make(answer).client, updateInput())).Attributes).toEqual(expected.Attributes);
    }
  });

  it('a refused condition is the same ConditionalCheckFailedException, and a conditional write returns the item it carried', async () => {
    const refusal = {
      __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
      message: 'The conditional request failed',
      Item: STORED,
    };
    for (const make of [documentClient, plainClient]) {
      await expect(sendPut(make(refusal, 400).client, putInput())).rejects.toBeInstanceOf(
        ConditionalCheckFailedException,
      );
      const outcome = await sendConditional(make(refusal, 400).client, { kind: 'update', ...updateInput() });
      expect(outcome).toEqual({
        ok: false,
        current: (await sendGet(plainClient({ Item: STORED }).client, { TableName: 'jobs', Key: KEY })).Item,
      });
    }
  });
});

function queryInput() {
  return {
    TableName: 'jobs',
    IndexName: 'byDeadline',
    KeyConditionExpression: '#pk = :state AND #d < :fence',
    FilterExpression: '#m = :map',
    ExpressionAttributeNames: { '#pk': 'deadlineShard', '#d': 'deadlineAt', '#m': 'm' },
    ExpressionAttributeValues: { ...VALUES },
    ExclusiveStartKey: { ...KEY, deadlineAt: 5 },
    Limit: 10,
    ScanIndexForward: false,
    ReturnConsumedCapacity: 'TOTAL' as const,
  };
}

function scanInput() {
  return {
    TableName: 'jobs',
    ProjectionExpression: '#e',
    FilterExpression: '#e > :fence',
    ExpressionAttributeNames: { '#e': 'writer_epoch' },
    ExpressionAttributeValues: { ':fence': 3 },
    ExclusiveStartKey: KEY,
    ConsistentRead: true,
    Limit: 500,
  };
}

function putInput() {
  return {
    TableName: 'jobs',
    Item: { ...ITEM },
    ConditionExpression: 'attribute_not_exists(#pk) OR #f < :fence',
    ExpressionAttributeNames: { '#pk': 'pk', '#f': 'fence' },
    ExpressionAttributeValues: { ':fence': 3 },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

function updateInput() {
  return {
    TableName: 'jobs',
    Key: KEY,
    UpdateExpression: 'SET #f = :fence, #s = :state, #m = :map',
    ConditionExpression: 'attribute_exists(#pk)',
    ExpressionAttributeNames: { '#pk': 'pk', '#f': 'fence', '#s': 'state', '#m': 'm' },
    ExpressionAttributeValues: { ...VALUES },
    ReturnValues: 'ALL_NEW' as const,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

function deleteInput() {
  return {
    TableName: 'jobs',
    Key: KEY,
    ConditionExpression: 'attribute_not_exists(#s) OR #s <> :state',
    ExpressionAttributeNames: { '#s': 'state' },
    ExpressionAttributeValues: { ':state': 'claimed' },
  };
}

function transactInput() {
  const { ReturnValues: _returns, ...update } = updateInput();
  return {
    ClientRequestToken: 'token-1',
    TransactItems: [
      { Update: update },
      { Put: putInput() },
      { Delete: deleteInput() },
      {
        ConditionCheck: {
          TableName: 'jobs',
          Key: KEY,
          ConditionExpression: '#f = :fence',
          ExpressionAttributeNames: { '#f': 'fence' },
          ExpressionAttributeValues: { ':fence': 3 },
        },
      },
    ],
  };
}
