import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createPlainClient, type EndpointOptions, loadSqsClient } from '../aws-clients.js';
import { type Clock, systemClock } from '../clock.js';
import type { LeasefenceConfig } from '../config.js';
import type { TableClient, WorkItemStore, WorkItemStoreOptions } from '../store/index.js';
import { OperatorStore, SweeperStore } from '../store/index.js';

/** The clients a handler builds once per container from its configuration, and the clock its store runs on. */
interface HandlerClients<C extends TableClient = DynamoDBClient, S extends WorkItemStore = OperatorStore> {
  client: C;
  store: S;
  clock: Clock;
}

/** Which store a handler builds: the worker's core (WorkItemStore), or one with the facets its handler reads. */
type StoreClass<S extends WorkItemStore> = new (options: WorkItemStoreOptions) => S;

/** Where a handler's DynamoDB client points: the configured local engine, or AWS. */
function dynamodbEndpointOptions(config: LeasefenceConfig): EndpointOptions {
  return config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {};
}

/**
 * The clients of the admin API, whose code reaches DynamoDB only through the store: a plain DynamoDBClient (the store
 * marshals its own requests, so no @aws-sdk/lib-dynamodb loads at a cold start) and the OperatorStore on it. The
 * sweeper's is createSweeperClients; handlers that give jobs a DocumentClient use createJobHandlerClients
 * (lib/lambda/job-clients.ts).
 */
function createHandlerClients(config: LeasefenceConfig, clock: Clock = systemClock): HandlerClients {
  return handlerClientsOn(createPlainClient(dynamodbEndpointOptions(config)), config, clock, OperatorStore);
}

/** The sweeper's clients: as createHandlerClients, with the SweeperStore (no admin or tool facet in its bundle). */
function createSweeperClients(
  config: LeasefenceConfig,
  clock: Clock = systemClock,
): HandlerClients<DynamoDBClient, SweeperStore> {
  return handlerClientsOn(createPlainClient(dynamodbEndpointOptions(config)), config, clock, SweeperStore);
}

/**
 * The store on `client` (local endpoints when configured, AWS otherwise), on the SDK's default options: one
 * DynamoDB client whose middleware stack every request of the handler runs, so a tracer or counter added to
 * `client`, at any time, sees the store's writes too. Not `cacheMiddleware`: it would save a little CPU per request
 * (test/bench/README.md, "Worker CPU") but ignores middleware added after the first one.
 */
function handlerClientsOn<C extends TableClient, S extends WorkItemStore>(
  client: C,
  config: LeasefenceConfig,
  clock: Clock,
  Store: StoreClass<S>,
): HandlerClients<C, S> {
  const store = new Store({
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

export {
  createHandlerClients,
  createSweeperClients,
  dynamodbEndpointOptions,
  type HandlerClients,
  handlerClientsOn,
  lazySqsClient,
  type StoreClass,
  sqsEndpointOptions,
};
