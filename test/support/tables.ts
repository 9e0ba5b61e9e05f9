import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { jobsTableDefinition, payloadsTableDefinition } from '../../lib/store/table.js';

// Table set-up shared by the test engines and the benchmark (no vitest import: the benchmark bundles it).

/**
 * Waits until the table and its indexes are ACTIVE: immediate on local engines, seconds on AWS. Polls every
 * `intervalMs` up to `attempts` times, then throws naming the table.
 */
async function waitUntilActive(
  client: DynamoDBDocumentClient,
  tableName: string,
  options: { attempts?: number; intervalMs?: number } = {},
): Promise<void> {
  const attempts = options.attempts ?? 120;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1_000));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}

/** Creates a jobs and a payloads table from the library's own definitions and waits until both are ACTIVE. */
async function createLeasefenceTablePair(
  client: DynamoDBDocumentClient,
  names: { jobsTable: string; payloadsTable: string },
  wait: { attempts?: number; intervalMs?: number } = {},
): Promise<void> {
  await client.send(new CreateTableCommand(jobsTableDefinition(names.jobsTable)));
  await client.send(new CreateTableCommand(payloadsTableDefinition(names.payloadsTable)));
  await waitUntilActive(client, names.jobsTable, wait);
  await waitUntilActive(client, names.payloadsTable, wait);
}

export { createLeasefenceTablePair, waitUntilActive };
