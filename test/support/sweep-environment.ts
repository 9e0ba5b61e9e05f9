import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach } from 'vitest';
import { ManualClock } from '../../lib/clock.js';
import { createTestQueue, createTestTables, type TestTables, testSqsClient } from './engine.js';
import { type StoreFixture, storeFixture } from './store.js';

/** What a sweeper test works on: its own tables and queue, a ManualClock, and one store on that clock. */
interface SweepEnvironment {
  tables: TestTables;
  sqs: SQSClient;
  queueUrl: string;
  clock: ManualClock;
  fixture: StoreFixture;
}

/**
 * Fresh tables, queue, clock and store for every test of the calling describe block, dropped after it: the sweeper
 * reads the whole deadline index, so tests must never see each other's rows. Read the fields inside tests only.
 */
function useSweepEnvironment(prefix: string): SweepEnvironment {
  const environment = {} as SweepEnvironment;
  beforeEach(async () => {
    environment.tables = await createTestTables(prefix);
    environment.sqs = testSqsClient();
    environment.queueUrl = (await createTestQueue(environment.sqs, prefix)).queueUrl;
    environment.clock = new ManualClock();
    environment.fixture = storeFixture(environment.tables.jobsTable, { clock: environment.clock });
  });
  afterEach(async () => {
    await environment.tables.drop();
    environment.sqs.destroy();
  });
  return environment;
}

export { type SweepEnvironment, useSweepEnvironment };
