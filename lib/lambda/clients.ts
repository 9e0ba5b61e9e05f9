import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type EndpointOptions, loadSqsClient } from '../aws-clients.js';
import { type Clock, systemClock } from '../clock.js';
import type { LeasefenceConfig } from '../config.js';
import { createDocumentClient } from '../document-client.js';
import { WorkItemStore } from '../store/work-item-store.js';

/** The clients a handler builds once per container from its configuration, and the clock its store runs on. */
interface HandlerClients {
  client: DynamoDBDocumentClient;
  store: WorkItemStore;
  clock: Clock;
}

/**
 * Builds the DynamoDB client and the store (local endpoints when configured, AWS otherwise), on the
 * SDK's default options: one DynamoDB client whose middleware stack every request of the handler runs, so a
 * tracer or counter added to `client`, at any time, sees the store's writes too. Not `cacheMiddleware`: it would
 * save a little CPU per request (test/bench/README.md, "Worker CPU") but ignores middleware added after the first one.
 */
function createHandlerClients(config: LeasefenceConfig, clock: Clock = systemClock): HandlerClients {
  const client = createDocumentClient(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {});
  const store = new WorkItemStore({
    client,
    tableName: config.jobsTable,
    deadlineShards: config.deadlineShards,
    clock,
  });
  return { client, store, clock };
}

/** Where a handler's SQS client points: the configured local engine, or AWS. */
function sqsEndpointOptions(config: LeasefenceConfig): EndpointOptions {
  return config.sqsEndpoint ? { endpoint: config.sqsEndpoint } : {};
}

/**
 * The handler's SQS client, built (and its SDK module loaded) on first use and then reused: for a handler that
 * may never send in a container's life. A failed load is not kept: the next call tries again.
 */
function lazySqsClient(config: LeasefenceConfig): () => Promise<SQSClient> {
  let pending: Promise<SQSClient> | undefined;
  return () => {
    pending ??= loadSqsClient(sqsEndpointOptions(config)).catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

export { createHandlerClients, type HandlerClients, lazySqsClient, sqsEndpointOptions };
