import { CreateTableCommand, DeleteTableCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../../lib/document-client.js';

/** What the DynamoDB engine under test can do; tests that need a missing capability skip with the reason. */
interface EngineCapabilities {
  transactions: boolean;
}

/** Probes for TransactWriteItems with a throwaway table (dynalite answers UnknownOperationException). */
async function probeEngine(endpoint: string): Promise<EngineCapabilities> {
  const client = createDocumentClient({ endpoint, maxAttempts: 1 });
  const tableName = `probe-${process.pid}-${Date.now()}`;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    }),
  );
  let transactions = false;
  try {
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [{ Put: { TableName: tableName, Item: { pk: { S: 'probe' } } } }],
      }),
    );
    transactions = true;
  } catch {
    transactions = false;
  }
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
  return { transactions };
}

export { type EngineCapabilities, probeEngine };
