import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
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

/** DocumentClient options: where it points, and whether the store's single-item writes reuse their resolved middleware. */
interface DocumentClientOptions extends EndpointOptions {
  /**
   * Resolve the middleware stack once per command type for the store's single-item conditional writes (the SDK's
   * `cacheMiddleware`), instead of once per request: the largest share of the SDK's own CPU per write. Adding or
   * removing middleware on the client drops the cached handlers, so the next write sees the change.
   */
  cacheMiddleware?: boolean;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

function baseConfig(options: EndpointOptions): DynamoDBClientConfig & SQSClientConfig {
  const local = options.endpoint !== undefined;
  return {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(local ? { endpoint: options.endpoint, credentials: options.credentials ?? LOCAL_CREDENTIALS } : {}),
    ...(options.credentials && !local ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  };
}

// A DocumentClient cannot cache its middleware (its commands would all resend the first input), so the plain
// commands it sends on the hot path go through a twin that can, registered here and rebuilt after a stack change.
interface TwinSlot {
  twin: DynamoDBClient | undefined;
  readonly build: () => DynamoDBClient;
}
const cachingTwins = new WeakMap<DynamoDBDocumentClient, TwinSlot>();

/** A DocumentClient that drops undefined attributes (optional fields never become NULLs). */
function createDocumentClient(options: DocumentClientOptions = {}): DynamoDBDocumentClient {
  const { cacheMiddleware, ...endpoint } = options;
  const plain = new DynamoDBClient(baseConfig(endpoint));
  const document = DynamoDBDocumentClient.from(plain, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  if (cacheMiddleware === true) {
    const slot: TwinSlot = { twin: undefined, build: () => cachingTwinOf(plain, endpoint) };
    onStackChange(plain.middlewareStack, () => {
      slot.twin = undefined;
    });
    cachingTwins.set(document, slot);
  }
  return document;
}

/**
 * A plain client that runs `plain`'s own middleware stack (the same object: its retries, signing and any middleware
 * added to it) over the same connections, resolving that stack once per command type.
 */
function cachingTwinOf(plain: DynamoDBClient, options: EndpointOptions): DynamoDBClient {
  const twin = new DynamoDBClient({
    ...baseConfig(options),
    cacheMiddleware: true,
    requestHandler: plain.config.requestHandler,
  });
  twin.middlewareStack = plain.middlewareStack;
  return twin;
}

/** The caching twin of a DocumentClient made with `cacheMiddleware: true`; undefined for any other client. */
function cachingTwin(client: DynamoDBDocumentClient): DynamoDBClient | undefined {
  const slot = cachingTwins.get(client);
  if (slot === undefined) return undefined;
  slot.twin ??= slot.build();
  return slot.twin;
}

const STACK_CHANGES = ['add', 'addRelativeTo', 'remove', 'removeByTag', 'use'] as const;

/**
 * Calls `changed` on every change to this stack's members. The SDK's handler cache never looks at the stack
 * again, and the stack has no version to compare, so its own changing methods are wrapped (this instance only).
 */
function onStackChange(stack: DynamoDBClient['middlewareStack'], changed: () => void): void {
  const methods = stack as unknown as Record<(typeof STACK_CHANGES)[number], (...args: unknown[]) => unknown>;
  for (const name of STACK_CHANGES) {
    const original = methods[name].bind(stack);
    methods[name] = (...args: unknown[]) => {
      changed();
      return original(...args);
    };
  }
}

/** An SQS client for AWS or a local SQS engine. */
function createSqsClient(options: EndpointOptions = {}): SQSClient {
  return new SQSClient(baseConfig(options));
}

export { cachingTwin, createDocumentClient, createSqsClient, type DocumentClientOptions, type EndpointOptions };
