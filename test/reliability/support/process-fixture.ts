import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../../../lib/clock.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity, ValidIdentity } from '../../../lib/identity.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import { type SweepSummary, sweep } from '../../../lib/sweeper/sweeper.js';
import type { QueueMessage } from '../../../lib/worker/worker-runtime.js';
import {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testDocumentClient,
  testSqsClient,
} from '../../support/engine.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';
import { EffectLedger } from './effect-ledger.js';
import { type ReliabilityPayload, reliabilityJobClass } from './reliability-jobs.js';
import type { ReplayTally } from './replay/history.js';
import { RecordingProxy } from './replay/recording-proxy.js';
import { WorkerProcessPool } from './worker-processes.js';

/**
 * Tables, queue, ledger and a pool of worker processes on the real engines, all on the system clock. Every write to
 * the jobs table (the worker processes', the sweeper's, the admin's) goes through a recording proxy, so each row's
 * history can be replayed through the model's step relation (issue #44 item 5).
 */
interface ProcessFixture {
  tables: TestTables;
  ledgerTable: UserTable;
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  queueUrl: string;
  /** The operator's store (the sweeper's and the admin's): through the recording proxy, like the workers. */
  store: OperatorStore;
  payloads: PayloadStore;
  /** Records every work row's history as the engine committed it (workers, sweeper and admin all write through it). */
  recorder: RecordingProxy;
  /** The recorded histories of these jobs' rows replayed through the model's step relation (model/transitions.json). */
  replay(identities: readonly JobIdentity[]): ReplayTally;
  ledger: EffectLedger;
  pool: WorkerProcessPool;
  /** Stores the payload body and returns the producer's message for it (as SQS would deliver it). */
  jobMessage(identity: ValidIdentity, jobType: string, payload: ReliabilityPayload): Promise<QueueMessage>;
  /** Waits (bounded) until the item is no longer held by a live lease on the wall clock. */
  waitForLeaseExpiry(identity: ValidIdentity, maxWaitMs?: number): Promise<void>;
  /** One sweeper run on the wall clock (re-signals go to the fixture's queue). */
  sweep(): Promise<SweepSummary>;
  close(): Promise<void>;
}

/** Creates the fixture; worker processes get `leaseMs` leases (real time: keep it short). */
async function createProcessFixture(prefix: string, leaseMs: number): Promise<ProcessFixture> {
  const tables = await createTestTables(prefix);
  const ledgerTable = await createUserTable(`${prefix}-ledger`, { partition: 'pk', sort: 'sk' });
  const client = testDocumentClient();
  const sqs = testSqsClient();
  const { queueUrl } = await createTestQueue(sqs, prefix, { visibilityTimeoutSeconds: 2, maxReceiveCount: 100 });
  const { dynamo, sqs: sqsEndpoint } = engineEndpoints();
  const recorder = await RecordingProxy.start(dynamo, client, tables.jobsTable, reliabilityJobClass);
  const recorded = createDocumentClient({ endpoint: recorder.endpoint });
  const store = new OperatorStore({ client: recorded, tableName: tables.jobsTable, deadlineShards: 8 });
  const payloads = new PayloadStore(client, tables.payloadsTable, systemClock);
  const pool = new WorkerProcessPool({
    dynamoEndpoint: recorder.endpoint,
    sqsEndpoint,
    jobsTable: tables.jobsTable,
    payloadsTable: tables.payloadsTable,
    ledgerTable: ledgerTable.tableName,
    leaseMs,
  });
  return {
    tables,
    ledgerTable,
    client,
    sqs,
    queueUrl,
    store,
    payloads,
    recorder,
    replay: (identities) => recorder.replay(identities),
    ledger: new EffectLedger(client, ledgerTable.tableName),
    pool,
    jobMessage: async (identity, jobType, payload) => {
      const hash = payloadHash(payload);
      await payloads.put(identity, payload, hash);
      const body = serializeEnvelope({
        v: 1,
        kind: 'job',
        ...identity,
        jobType,
        payloadHash: hash,
        payload: { inline: true },
      });
      return { messageId: randomUUID(), body, receiveCount: 1 };
    },
    waitForLeaseExpiry: async (identity, maxWaitMs = 15_000) => {
      const deadline = Date.now() + maxWaitMs;
      while (Date.now() < deadline) {
        const item = await store.get(identity);
        if (item?.state !== 'claimed' || (item.leaseExpiresAt ?? 0) + 20 < Date.now()) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`lease of ${identity.operationId} did not expire within ${maxWaitMs} ms`);
    },
    sweep: () => sweep({ store, sqs, queueUrl, dueGraceMs: 0, resignalIntervalMs: 500 }),
    close: async () => {
      await pool.killAll();
      await recorder.stop();
      recorded.destroy();
      await tables.drop();
      await ledgerTable.drop();
      client.destroy();
      sqs.destroy();
    },
  };
}

export { createProcessFixture, type ProcessFixture };
