import { Readable } from 'node:stream';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lib/document-client.js';
import { sendConditional } from '../../lib/store/conditional-write.js';

/** What left the client: the HTTP request the SDK signed, as the network would see it. */
interface SentRequest {
  hostname: string;
  target: string;
  authorization: string;
  body: string;
}

/**
 * A client for AWS itself (no local endpoint), whose connection handler is swapped for one that records each
 * request and answers `{}`: nothing leaves the machine.
 */
function recordingAwsClient() {
  const client = createDocumentClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDCLIENTTEST', secretAccessKey: 'secret' },
  });
  const sent: SentRequest[] = [];
  const handler = client.config.requestHandler as unknown as { handle: (request: unknown) => Promise<unknown> };
  handler.handle = async (request) => {
    const http = request as { hostname: string; headers: Record<string, string>; body: string | Uint8Array };
    sent.push({
      hostname: http.hostname,
      target: http.headers['x-amz-target'] ?? '',
      authorization: http.headers.authorization ?? '',
      body: Buffer.from(http.body).toString('utf8'),
    });
    return {
      response: {
        statusCode: 200,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: Readable.from([Buffer.from('{}')]),
      },
    };
  };
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
