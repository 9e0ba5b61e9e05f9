import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../clock.js';
import type { LeasefenceConfig } from '../config.js';
import { createDocumentClient } from '../document-client.js';
import { WorkItemStore } from '../store/index.js';
import { dynamodbEndpointOptions, type HandlerClients, handlerClientsOn, type StoreClass } from './clients.js';

/**
 * The clients of a handler that runs user code with a DocumentClient (the worker's `ctx.client`, the schedule
 * tick's producer): a DocumentClient (lib/document-client.ts) and the worker's core store on it, which sends its own
 * requests through the DocumentClient's middleware stack (see handlerClientsOn).
 */
function createJobHandlerClients(
  config: LeasefenceConfig,
  clock: Clock = systemClock,
): HandlerClients<DynamoDBDocumentClient, WorkItemStore> {
  return jobHandlerClientsWith(config, clock, WorkItemStore);
}

/** createJobHandlerClients with the store a handler needs beyond the core (the shadow wrapper's ShadowStore). */
function jobHandlerClientsWith<S extends WorkItemStore>(
  config: LeasefenceConfig,
  clock: Clock,
  Store: StoreClass<S>,
): HandlerClients<DynamoDBDocumentClient, S> {
  return handlerClientsOn(createDocumentClient(dynamodbEndpointOptions(config)), config, clock, Store);
}

export { createJobHandlerClients, jobHandlerClientsWith };
