import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ManualClock } from '../../../lib/clock.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { JobRegistry } from '../../../lib/job-definition.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import { type SweepSummary, sweep } from '../../../lib/sweeper/sweeper.js';
import { type QueueMessage, WorkerRuntime } from '../../../lib/worker/worker-runtime.js';
import {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testDocumentClient,
  testSqsClient,
} from '../../support/engine.js';
import { FaultProxy } from '../../support/fault-proxy.js';
import { drainQueue } from '../../support/queue-reader.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';
import { EffectLedger } from './effect-ledger.js';
import {
  type Checkpoint,
  type ReliabilityPayload,
  recordKey,
  reliabilityJobClass,
  reliabilityJobs,
} from './reliability-jobs.js';
import { RecordingProxy } from './replay/recording-proxy.js';

/** Worker runtimes whose DynamoDB traffic goes through a fault proxy; the test owns the clock. */
interface NetworkFixture {
  tables: TestTables;
  ledgerTable: UserTable;
  proxy: FaultProxy;
  /** Behind the fault proxy, in front of the engine: records every work row's history as the engine committed it. */
  recorder: RecordingProxy;
  clock: ManualClock;
  /** Store and client without faults (through the recorder only), for preparing and inspecting. */
  store: OperatorStore;
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  ledger: EffectLedger;
  /** Called when a job reaches a checkpoint its payload names; the job waits for the returned promise. */
  onCheckpoint: (point: Checkpoint) => Promise<void>;
  /** A worker runtime on its own client through the proxy; `sdkAttempts` 1 turns SDK retries off. */
  worker(workerId: string, sdkAttempts?: number): WorkerRuntime;
  /** Stores the payload and returns the producer's first message (`job`) or a re-signal (`wake`). */
  message(
    identity: JobIdentity,
    jobType: string,
    payload: ReliabilityPayload,
    kind?: 'job' | 'wake',
  ): Promise<QueueMessage>;
  /** A sweeper run on the fixture clock; returns its summary and the wake-ups it sent. */
  sweep(): Promise<{ summary: SweepSummary; wakes: QueueMessage[] }>;
  record(identity: JobIdentity): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

/** Creates tables, ledger, queue and proxy for one test file. */
async function createNetworkFixture(prefix: string, leaseMs: number): Promise<NetworkFixture> {
  const tables = await createTestTables(prefix);
  const ledgerTable = await createUserTable(`${prefix}-ledger`, { partition: 'pk', sort: 'sk' });
  const reader = testDocumentClient();
  const recorder = await RecordingProxy.start(engineEndpoints().dynamo, reader, tables.jobsTable, reliabilityJobClass);
  const proxy = await FaultProxy.start(recorder.endpoint);
  const clock = new ManualClock(Date.now());
  const client = createDocumentClient({ endpoint: recorder.endpoint });
  const sqs = testSqsClient();
  const { queueUrl } = await createTestQueue(sqs, prefix);
  const store = new OperatorStore({ client, tableName: tables.jobsTable, clock, deadlineShards: 8 });
  const ledger = new EffectLedger(client, ledgerTable.tableName);
  const workerClients: DynamoDBDocumentClient[] = [];
  const fixture: NetworkFixture = {
    tables,
    ledgerTable,
    proxy,
    recorder,
    clock,
    store,
    client,
    sqs,
    ledger,
    onCheckpoint: async () => {},
    worker: (workerId, sdkAttempts) => {
      const viaProxy = createDocumentClient({
        endpoint: proxy.endpoint,
        ...(sdkAttempts !== undefined ? { maxAttempts: sdkAttempts } : {}),
      });
      workerClients.push(viaProxy);
      const jobs = reliabilityJobs({
        workerId,
        ledger,
        recordsTable: ledgerTable.tableName,
        leaseMs,
        checkpoint: (point) => fixture.onCheckpoint(point),
      });
      return new WorkerRuntime({
        store: new OperatorStore({ client: viaProxy, tableName: tables.jobsTable, clock, deadlineShards: 8 }),
        client: viaProxy,
        registry: new JobRegistry(jobs),
        payloads: new PayloadStore(viaProxy, tables.payloadsTable, clock),
        workerId,
        heartbeatIntervalMs: 0,
      });
    },
    message: async (identity, jobType, payload, kind = 'job') => {
      const hash = payloadHash(payload);
      await new PayloadStore(client, tables.payloadsTable, clock).put(identity, payload, hash);
      const envelope = {
        v: 1 as const,
        kind,
        ...identity,
        jobType,
        payloadHash: hash,
        payload: { inline: true as const },
      };
      return { messageId: randomUUID(), body: serializeEnvelope(envelope), receiveCount: 1 };
    },
    sweep: async () => {
      const summary = await sweep({ store, sqs, queueUrl, clock, dueGraceMs: 0, resignalIntervalMs: 1_000 });
      const wakes = (await drainQueue(sqs, queueUrl)).map((message) => ({
        messageId: message.messageId,
        body: message.body,
      }));
      return { summary, wakes };
    },
    record: async (identity) => {
      const output = await client.send(
        new GetCommand({ TableName: ledgerTable.tableName, Key: recordKey(identity), ConsistentRead: true }),
      );
      return output.Item;
    },
    close: async () => {
      for (const workerClient of workerClients) workerClient.destroy();
      await proxy.stop();
      await recorder.stop();
      await tables.drop();
      await ledgerTable.drop();
      client.destroy();
      reader.destroy();
      sqs.destroy();
    },
  };
  return fixture;
}

export { createNetworkFixture, type NetworkFixture };
