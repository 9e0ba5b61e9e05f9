import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { clientConfig, MARSHALL_OPTIONS } from '../../lib/aws-clients.js';
import { sendConditional } from '../../lib/store/driver/conditional-write.js';

/** What left the client: the HTTP request the SDK signed, as the network would see it. */
interface SentRequest {
  hostname: string;
  target: string;
  authorization: string;
  body: string;
}

/**
 * A DocumentClient for AWS itself (no local endpoint), built as createDocumentClient builds one (clientConfig,
 * MARSHALL_OPTIONS), with a request handler given through the SDK's documented `requestHandler` option that
 * records each request and answers `{}`: nothing leaves the machine.
 */
function recordingAwsClient() {
  const sent: SentRequest[] = [];
  const requestHandler = {
    handle: async (request: { hostname: string; headers: Record<string, string>; body: string | Uint8Array }) => {
      sent.push({
        hostname: request.hostname,
        target: request.headers['x-amz-target'] ?? '',
        authorization: request.headers.authorization ?? '',
        body: Buffer.from(request.body).toString('utf8'),
      });
      return {
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from('{}')]),
        },
      };
    },
  };
  const config = clientConfig({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDCLIENTTEST', secretAccessKey: 'secret' },
  });
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ ...config, requestHandler }), {
    marshallOptions: { ...MARSHALL_OPTIONS },
  });
  return { client, sent };
}

describe('a DocumentClient configured for AWS', () => {
  it('sends its own commands and the store’s plain conditional writes to the regional endpoint, signed, each with its own input', async () => {
    const { client, sent } = recordingAwsClient();

    await client.send(new GetCommand({ TableName: 'jobs', Key: { pk: 'a', sk: 'b' } }));
    for (const value of ['first', 'second', 'third']) {
      await sendConditional(client, {
        kind: 'update',
        TableName: 'jobs',
        Key: { pk: 'a', sk: 'b' },
        UpdateExpression: 'SET #v = :v',
        ExpressionAttributeNames: { '#v': 'v' },
        ExpressionAttributeValues: { ':v': value },
      });
    }

    expect(sent.map((request) => request.target)).toEqual([
      'DynamoDB_20120810.GetItem',
      'DynamoDB_20120810.UpdateItem',
      'DynamoDB_20120810.UpdateItem',
      'DynamoDB_20120810.UpdateItem',
    ]);
    for (const request of sent) {
      expect(request.hostname).toBe('dynamodb.eu-west-1.amazonaws.com');
      expect(request.authorization).toMatch(/Credential=AKIDCLIENTTEST\/\d{8}\/eu-west-1\/dynamodb\/aws4_request/);
    }
    // Each write carries its own input, not the first one's.
    expect(sent.slice(1).map((request) => JSON.parse(request.body).ExpressionAttributeValues[':v'].S)).toEqual([
      'first',
      'second',
      'third',
    ]);
  });
});
