import { TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Key the probe checks; `#` cannot appear in a tenant id, so no work item can ever live there. */
const PROBE_KEY = { pk: { S: '#capability-probe' }, sk: { S: 'probe' } };

/**
 * True when the engine runs TransactWriteItems (class A jobs need it). Probes with a transaction holding one
 * ConditionCheck (attribute_not_exists on a key no record uses), which writes nothing. dynalite answers
 * UnknownOperationException; anything but success counts as "no".
 */
async function supportsTransactions(client: DynamoDBDocumentClient, tableName: string): Promise<boolean> {
  try {
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { ConditionCheck: { TableName: tableName, Key: PROBE_KEY, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    return true;
  } catch {
    return false;
  }
}

export { supportsTransactions };
