import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EnvironmentVariable } from '../../../lib/config.js';
import { MetricName } from '../../../lib/metric-names.js';
import { WorkState } from '../../../lib/states.js';
import {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testSqsClient,
} from '../../support/engine.js';
import { expectState } from '../../support/expectations.js';
import { newIdentity, putWorkItem } from '../../support/factories.js';
import { drainQueue } from '../../support/queue-reader.js';
import { storeFixture } from '../../support/store.js';

describe('functions/sweeper.ts handler', () => {
  let tables: TestTables;
  let sqs: SQSClient;
  let queueUrl: string;

  beforeAll(async () => {
    tables = await createTestTables('sweep-handler');
    sqs = testSqsClient();
    ({ queueUrl } = await createTestQueue(sqs, 'sweep-handler'));
    const { dynamo, sqs: sqsEndpoint } = engineEndpoints();
    vi.stubEnv(EnvironmentVariable.jobsTable, tables.jobsTable);
    vi.stubEnv(EnvironmentVariable.payloadsTable, tables.payloadsTable);
    vi.stubEnv(EnvironmentVariable.queueUrl, queueUrl);
    vi.stubEnv(EnvironmentVariable.dynamodbEndpoint, dynamo);
    vi.stubEnv(EnvironmentVariable.sqsEndpoint, sqsEndpoint);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await tables.drop();
    sqs.destroy();
  });

  it('sweeps on the wall clock, emits the three sweeper metrics and logs no identifiers', async () => {
    // Prepare: one exhausted and one retryable claim whose leases expired ten minutes ago (real time).
    const { client, store } = storeFixture(tables.jobsTable);
    const now = Date.now();
    const expired = { leaseExpiresAt: now - 600_000, deadlineAt: now - 600_000 };
    const exhausted = newIdentity('tenant-handler');
    const retryable = newIdentity('tenant-handler');
    await putWorkItem(client, tables.jobsTable, {
      identity: exhausted,
      state: WorkState.claimed,
      now,
      overrides: { ...expired, attempts: 3, maxAttempts: 3 },
    });
    await putWorkItem(client, tables.jobsTable, {
      identity: retryable,
      state: WorkState.claimed,
      now,
      overrides: { ...expired, attempts: 1 },
    });
    const output: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    });
    const { handler } = await import('../../../functions/sweeper.js');

    // Act
    let result: Awaited<ReturnType<typeof handler>>;
    try {
      result = await handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
    } finally {
      write.mockRestore();
    }

    // Assert
    expect(result).toMatchObject({ sweptToUnknown: 1, resignalled: 1, lostRaces: 0, continues: false });
    await expectState(store, exhausted, WorkState.unknown);
    expect(await drainQueue(sqs, queueUrl)).toHaveLength(1);
    const text = output.join('');
    for (const metric of [MetricName.SweptToUnknown, MetricName.Resignalled, MetricName.OldestUnknownAgeSeconds]) {
      expect(text).toContain(`"${metric}"`);
    }
    expect(text).not.toContain(exhausted.operationId);
    expect(text).not.toContain('tenant-handler');
  });
});
