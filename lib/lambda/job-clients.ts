import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../clock.js';
import type { LeasefenceConfig } from '../config.js';
import { createDocumentClient } from '../document-client.js';
import { dynamodbEndpointOptions, type HandlerClients, handlerClientsOn } from './clients.js';

/**
 * The clients of a handler that runs user code with a DocumentClient (the worker's `ctx.client`, the schedule
 * tick's producer, the shadow wrapper's): a DocumentClient (lib/document-client.ts) and the store on it, which
 * sends its own requests through the DocumentClient's middleware stack (see handlerClientsOn).
 */
function createJobHandlerClients(
  config: LeasefenceConfig,
  clock: Clock = systemClock,
): HandlerClients<DynamoDBDocumentClient> {
  return handlerClientsOn(createDocumentClient(dynamodbEndpointOptions(config)), config, clock);
}

export { createJobHandlerClients };
