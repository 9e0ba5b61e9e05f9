import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalJobsEnvironment } from '../../infra/local/jobs-module.js';
import type { JobConformanceModule } from '../../infra/testing/module.js';
import { examplesTableDefinition } from './examples-table.js';
import { createExampleJobs } from './index.js';

/** The examples table this module declares (the local stack and `check` create it when missing). */
const EXAMPLES_TABLE = 'leasefence-examples';

/** Sample payloads and per-tenant records for the example jobs' conformance runs. */
function exampleConformance(tableName: string): NonNullable<JobConformanceModule['conformance']> {
  return {
    samplePayloads: {
      'refund-settlement': [
        { merchantId: 'm_4471', amount: 70.25, currency: 'EUR' },
        { merchantId: 'm_4471', amount: 84.3, currency: 'EUR' },
      ],
      'statement-publication': [{ accountId: 'account-42', date: '2026-09-13', lines: 3 }],
      'inventory-reservation': [{ sku: 'sku-lamp', quantity: 2 }],
    },
    prepare: {
      // Stock to reserve: the inventory job's shared record, per tenant (class A refuses to go below zero).
      // `tables` names the table where the job runs (a deployed stack's ExamplesTableName through `check --stack`).
      'inventory-reservation': async ({ client, tenantId, payload, tables }) => {
        const { sku } = payload as { sku: string };
        await client.send(
          new PutCommand({
            TableName: tables[tableName] ?? tableName,
            Item: { pk: `inventory#${tenantId}#${sku}`, sk: 'stock', available: 100 },
          }),
        );
      },
    },
  };
}

/**
 * The example jobs as a jobs module, the shape `leasefence start --jobs` and `check --jobs` take: the CLI and
 * the local stack load this file by path when no module is given, exactly as they load a user's.
 */
const tables = [examplesTableDefinition(EXAMPLES_TABLE)];
const jobs = (environment: LocalJobsEnvironment) =>
  createExampleJobs(environment.tables[EXAMPLES_TABLE] ?? EXAMPLES_TABLE);
const conformance = exampleConformance(EXAMPLES_TABLE);

export { conformance, EXAMPLES_TABLE, exampleConformance, jobs, tables };
