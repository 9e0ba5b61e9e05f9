import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runConformance } from '../../../infra/testing/run-conformance.js';
import { defineJob } from '../../../lib/job-definition.js';
import { fixtureConformance, fixtureTables } from '../../support/conformance-jobs.js';
import { engineEndpoints, uniqueName } from '../../support/engine.js';

const TABLE = uniqueName('lf-process-clients');

// A client the test's process built itself, before any conformance run: it resolves its endpoint at its first
// request (during the first run) and keeps it, as a shared client module in a user's suite would.
const shared = DynamoDBDocumentClient.from(new DynamoDBClient({}));

const ownClientJob = defineJob({
  type: 'own-client-order',
  version: 1,
  target: 'B',
  owner: 'conformance-tests',
  alertRoute: 'test:alerts',
  payload: z.strictObject({ accountId: z.string(), amount: z.number() }),
  run: async (ctx) => {
    const key = { pk: `order#${ctx.identity.tenantId}#${ctx.identity.operationId}`, sk: 'order' };
    await shared.send(new PutCommand({ TableName: TABLE, Item: { ...key, amount: ctx.payload.amount } }));
    return { outcomeCode: 'placed' };
  },
});

const run = () =>
  runConformance(ownClientJob, {
    samplePayloads: fixtureConformance(['own-client-order']).samplePayloads['own-client-order'] ?? [],
    endpoint: engineEndpoints().dynamo,
    tables: fixtureTables(TABLE),
  });

describe('clients the process builds itself are observed at the engine boundary, run after run', () => {
  afterAll(() => shared.destroy());

  it("two runs (each its own engine) both see the shared client's unfenced write; the environment is restored", async () => {
    const before = { url: process.env.AWS_ENDPOINT_URL_DYNAMODB, endpoint: process.env.DYNAMODB_ENDPOINT };

    const first = await run();
    const second = await run();

    for (const report of [first, second]) {
      expect(report.verdict).toBe('NO-GO');
      expect(report.controls[3]?.status).toBe('FAIL');
      expect(report.unfencedWrites.map((write) => [write.table, write.call, write.source])).toContainEqual([
        TABLE,
        'PutItem',
        'process',
      ]);
    }
    expect({ url: process.env.AWS_ENDPOINT_URL_DYNAMODB, endpoint: process.env.DYNAMODB_ENDPOINT }).toEqual(before);
  });
});
