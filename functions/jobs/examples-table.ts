import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** The example jobs' own records (refunds, statements, stock, the simulated gateway): a plain pk/sk table. */
function examplesTableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ],
  };
}

export { examplesTableDefinition };
