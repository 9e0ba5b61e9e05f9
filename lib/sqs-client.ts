import { SQSClient } from '@aws-sdk/client-sqs';
import { clientConfig, type EndpointOptions } from './aws-clients.js';

/** An SQS client for AWS or a local SQS engine (the SQS SDK loads with this module; see loadSqsClient for later). */
function createSqsClient(options: EndpointOptions = {}): SQSClient {
  return new SQSClient(clientConfig(options));
}

export { createSqsClient };
