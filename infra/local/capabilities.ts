import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OperatorStore } from '../../lib/store/index.js';

/** True when the engine behind `client` runs TransactWriteItems (class A needs it); the store probes, writing nothing. */
function supportsTransactions(client: DynamoDBDocumentClient, tableName: string): Promise<boolean> {
  return new OperatorStore({ client, tableName }).maintenance.supportsTransactions();
}

export { supportsTransactions };
