import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// Init stage 3 (support/init-stages.ts): stage 2 and the objects the rules floor builds at import (rules-floor.ts,
// rules-floor-parts.ts): a DocumentClient, a Logger and Metrics. The full worker builds its own instead.
export { jobs, loaded } from './definitions.js';
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});
export const logger = new Logger({ serviceName: 'leasefence-stage' });
export const metrics = new Metrics({ namespace: 'LeasefenceStage', serviceName: 'leasefence-stage' });
