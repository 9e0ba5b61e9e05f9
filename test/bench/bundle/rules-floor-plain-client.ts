import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { floorHandler, JOBS_TABLE } from './rules-floor-parts.js';

// rules-floor.ts without lib-dynamodb: a plain DynamoDB client and `marshall`, the floor the sweeper and admin
// functions could reach (they give no job a DocumentClient). Bundled with the construct's settings; never deployed.

const client = new DynamoDBClient({});

/** The Lambda entry point: partial batch responses, one PutItem per record. */
export const handler = floorHandler((envelope) =>
  client.send(
    new PutItemCommand({
      TableName: JOBS_TABLE,
      Item: marshall(envelope, { removeUndefinedValues: true, convertClassInstanceToMap: false }),
    }),
  ),
);
