import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { floorHandler, JOBS_TABLE } from './rules-floor-parts.js';

// Figure 5's rules floor: what any leasefence worker must hold by the project's rules and nothing of leasefence
// (rules-floor-parts.ts), plus the DocumentClient the worker gives each job as `ctx.client` (public API), built
// with the marshall options leasefence's has. Bundled with the construct's settings; never deployed.

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

/** The Lambda entry point: partial batch responses, one PutCommand per record. */
export const handler = floorHandler((envelope) =>
  client.send(new PutCommand({ TableName: JOBS_TABLE, Item: { ...envelope } })),
);
