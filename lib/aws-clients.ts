import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { SQSClient, SQSClientConfig } from '@aws-sdk/client-sqs';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';

/** Where the AWS clients point: AWS by default, or a local engine (dynalite, fauxqs, moto) by endpoint. */
interface EndpointOptions {
  region?: string;
  endpoint?: string;
  /** Static credentials for local engines, which accept any. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** SDK attempts per request (the SDK retries throttles and network errors; the store copes with lost responses). */
  maxAttempts?: number;
}

/**
 * How leasefence marshals items: undefined attributes are dropped (optional fields never become NULLs), on
 * util-dynamodb's defaults otherwise. createDocumentClient configures its DocumentClient with these; the store
 * applies them itself when it sends through a plain client (createPlainClient).
 */
const MARSHALL_OPTIONS: Readonly<marshallOptions> = Object.freeze({
  removeUndefinedValues: true,
  convertClassInstanceToMap: false,
});

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
 * A plain DynamoDBClient on the SDK's defaults, for code that sends only through the store (the sweeper, the admin
 * API): the store marshals its requests itself with the same options a DocumentClient from createDocumentClient
 * (lib/document-client.ts) has, so this module loads no @aws-sdk/lib-dynamodb at a cold start.
 */
function createPlainClient(options: EndpointOptions = {}): DynamoDBClient {
  return new DynamoDBClient(clientConfig(options));
}

/**
 * An SQS client like createSqsClient (lib/sqs-client.ts), its SDK module loaded by this call, not at import: a
 * handler that seldom sends (the worker, only for a retry's wake-up) does not load it at cold start.
 */
async function loadSqsClient(options: EndpointOptions = {}): Promise<SQSClient> {
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  return new SQSClient(clientConfig(options));
}

export { clientConfig, createPlainClient, type EndpointOptions, loadSqsClient, MARSHALL_OPTIONS };
