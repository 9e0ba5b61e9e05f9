import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createPlainClient, type EndpointOptions, MARSHALL_OPTIONS } from './aws-clients.js';

/**
 * A DocumentClient that drops undefined attributes (optional fields never become NULLs), on the SDK's defaults
 * otherwise: the client a job's context carries (`ctx.client`), so the worker builds it. Every request it sends, the
 * store's plain requests included, runs its one middleware stack, resolved per request: an observer or fault added
 * to it at any time reaches the next request. Apart from lib/aws-clients.ts so that a handler building only a plain
 * client (createPlainClient) does not load @aws-sdk/lib-dynamodb.
 */
function createDocumentClient(options: EndpointOptions = {}): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createPlainClient(options), {
    // A copy: lib-dynamodb sets a flag on the object it is given.
    marshallOptions: { ...MARSHALL_OPTIONS },
  });
}

export { createDocumentClient };
