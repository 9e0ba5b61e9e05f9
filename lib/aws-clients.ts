import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { SQSClient, SQSClientConfig } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Where the AWS clients point: AWS by default, or a local engine (dynalite, fauxqs, moto) by endpoint. */
interface EndpointOptions {
  region?: string;
  endpoint?: string;
  /** Static credentials for local engines, which accept any. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** SDK attempts per request (the SDK retries throttles and network errors; the store copes with lost responses). */
  maxAttempts?: number;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The client configuration both services share: region, and a local engine's endpoint and credentials. */
function clientConfig(options: EndpointOptions): DynamoDBClientConfig & SQSClientConfig {
  const local = options.endpoint !== undefined;
  return {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(local ? { endpoint: options.endpoint, credentials: options.credentials ?? LOCAL_CREDENTIALS } : {}),
    ...(options.credentials && !local ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  };
}

/**
 * A DocumentClient that drops undefined attributes (optional fields never become NULLs), on the SDK's defaults
 * otherwise. Every request it sends, the store's plain conditional writes included, runs its one middleware
 * stack, resolved per request: an observer or fault added to it at any time reaches the next request.
 */
function createDocumentClient(options: EndpointOptions = {}): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(options)), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

/**
 * An SQS client like createSqsClient (lib/sqs-client.ts), its SDK module loaded by this call, not at import: a
 * handler that seldom sends (the worker, only for a retry's wake-up) does not load it at cold start.
 */
async function loadSqsClient(options: EndpointOptions = {}): Promise<SQSClient> {
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  return new SQSClient(clientConfig(options));
}

export { clientConfig, createDocumentClient, type EndpointOptions, loadSqsClient };
