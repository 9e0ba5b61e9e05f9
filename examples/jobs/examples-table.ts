import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../../lib/errors.js';

/** Environment variable naming the examples table; set by the project's stack on the example worker only. */
const EXAMPLES_TABLE_VARIABLE = 'LEASEFENCE_EXAMPLES_TABLE';

/** The examples table's name from the environment; missing ▶ ConfigurationError naming the variable. */
function examplesTableFromEnvironment(env: NodeJS.ProcessEnv = process.env): string {
  const name = env[EXAMPLES_TABLE_VARIABLE];
  if (!name) throw new ConfigurationError(`${EXAMPLES_TABLE_VARIABLE} is required by the example worker`);
  return name;
}

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

export { EXAMPLES_TABLE_VARIABLE, examplesTableDefinition, examplesTableFromEnvironment };
