import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createSqsClient } from '../aws-clients.js';
import { type Clock, systemClock } from '../clock.js';
import type { LeasefenceConfig } from '../config.js';
import { WorkItemStore } from '../store/work-item-store.js';

/** The clients a handler builds once per container from its configuration, and the clock its store runs on. */
interface HandlerClients {
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  store: WorkItemStore;
  clock: Clock;
}

/**
 * Builds the DynamoDB and SQS clients and the store (local endpoints when configured, AWS otherwise). The
 * DynamoDB client resolves its middleware once per command type for the store's writes (`cacheMiddleware`),
 * not once per request: the largest share of the SDK's CPU per job.
 */
function createHandlerClients(config: LeasefenceConfig, clock: Clock = systemClock): HandlerClients {
  const client = createDocumentClient({
    cacheMiddleware: true,
    ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {}),
  });
  const sqs = createSqsClient(config.sqsEndpoint ? { endpoint: config.sqsEndpoint } : {});
  const store = new WorkItemStore({
    client,
    tableName: config.jobsTable,
    deadlineShards: config.deadlineShards,
    clock,
  });
  return { client, sqs, store, clock };
}

export { createHandlerClients, type HandlerClients };
