import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { testDocumentClient, uniqueName } from './engine.js';

/** A user table of one test file (protected records live in the user's own tables, not the jobs table). */
interface UserTable {
  tableName: string;
  drop(): Promise<void>;
}

/** Creates a fresh user table keyed by `partition` (string) and optionally `sort` (string). */
async function createUserTable(prefix: string, keys: { partition: string; sort?: string }): Promise<UserTable> {
  const client = testDocumentClient();
  const tableName = uniqueName(prefix);
  const attributes = [keys.partition, ...(keys.sort ? [keys.sort] : [])];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: attributes.map((name, index) => ({ AttributeName: name, KeyType: index === 0 ? 'HASH' : 'RANGE' })),
      AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    }),
  );
  return {
    tableName,
    drop: async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
    },
  };
}

export { createUserTable, type UserTable };
