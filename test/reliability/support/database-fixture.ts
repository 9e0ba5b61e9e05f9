import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { raiseFences } from '../../../lib/admin/raise-fences.js';
import { systemClock } from '../../../lib/clock.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { type JobIdentity, parseIdentity } from '../../../lib/identity.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import { type SweepSummary, sweep } from '../../../lib/sweeper/sweeper.js';
import { createTestQueue, engineEndpoints, testSqsClient } from '../../support/engine.js';
import { FaultProxy } from '../../support/fault-proxy.js';
import { createLeasefenceTablePair } from '../../support/tables.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';
import { EffectLedger } from './effect-ledger.js';
import { DynamoDBEngine } from './engine-process.js';
import { type ReliabilityPayload, recordKey } from './reliability-jobs.js';
import { WorkerProcessPool } from './worker-processes.js';

/** Tables on the engine that fails; the external systems (ledger) and the queue stay on the suite's engines. */
const TABLES = { jobsTable: 'jobs', payloadsTable: 'payloads', recordsTable: 'records' } as const;
/** Sends of one job while the engine is away (bounded: 100 ms apart). */
const SEND_TRIES = 600;

/** A job the test sent. */
interface SentJob {
  identity: JobIdentity;
  jobType: string;
}

/**
 * The database-failure rig: a DynamoDB engine process with its data on disk (jobs, payloads and class B record
 * tables), worker processes on it, a sweeper and a producer in the test process, everyone reaching the engine
 * through one loopback proxy (its address never changes). The payment provider and the mailer (the ledger) and
 * SQS are other systems: they live on the suite's engines and never go away.
 *
 * Why the proxy: dynalite writes an item and each of its index entries as separate LevelDB operations, so a
 * SIGKILL inside one write can leave a row without its index entry, which DynamoDB never does (a row the
 * sweeper's index no longer shows would wait forever). `crash` therefore kills the engine between writes: the
 * proxy stops forwarding, the writes already inside the engine finish (their answers are dropped: committed,
 * never acknowledged), then SIGKILL, and every connection is reset. The clients see a database that died.
 */
interface DatabaseFixture {
  engine: DynamoDBEngine;
  proxy: FaultProxy;
  pool: WorkerProcessPool;
  sqs: SQSClient;
  queueUrl: string;
  /** The test's own client and store on the failing engine (two SDK attempts: errors come back fast). */
  client: DynamoDBDocumentClient;
  store: OperatorStore;
  ledger: EffectLedger;
  /** Sends a job, retrying (bounded) while the engine is away, as a producer would. */
  send(job: SentJob, payload: ReliabilityPayload): Promise<void>;
  /** One sweep; undefined when the engine did not answer (the next one starts over). */
  sweepOnce(): Promise<SweepSummary | undefined>;
  /** The database dies: SIGKILL between writes, every connection reset; requests are refused until `recover`. */
  crash(): Promise<void>;
  /** The engine starts again on the same port, on its own data or (failover) on a copy taken earlier. */
  recover(path?: string): Promise<void>;
  /** Copies the engine's data folder while the engine is stopped (SIGSTOP): a point to fail over to later. */
  snapshot(): Promise<string>;
  /**
   * The runbook's raise after a restore: a new fence epoch above the stored one and the highest writer_epoch of
   * the record table the job types declare, every row lifted into it, through every page.
   */
  raiseFenceEpoch(reason: string): Promise<{ epoch: number; floor: number; scanned: number; raised: number }>;
  /** The work row, read with the test's client (undefined when absent or the engine did not answer). */
  row(identity: JobIdentity): Promise<WorkItem | undefined>;
  /** The class B record an operation owns. */
  record(identity: JobIdentity): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

/** Starts the engine on a fresh folder, creates the tables, and prepares workers with `leaseMs` leases. */
async function createDatabaseFixture(prefix: string, leaseMs: number): Promise<DatabaseFixture> {
  const root = await mkdtemp(join(tmpdir(), `leasefence-${prefix}-`));
  const primary = join(root, 'primary');
  await mkdir(primary);
  const engine = await DynamoDBEngine.start(primary);
  const proxy = await FaultProxy.start(engine.endpoint);
  const client = createDocumentClient({ endpoint: proxy.endpoint, maxAttempts: 2 });
  await createLeasefenceTablePair(client, TABLES);
  await client.send(
    new CreateTableCommand({
      TableName: TABLES.recordsTable,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
    }),
  );
  const ledgerTable: UserTable = await createUserTable(`${prefix}-ledger`, { partition: 'pk', sort: 'sk' });
  const external = createDocumentClient({ endpoint: engineEndpoints().dynamo });
  const sqs = testSqsClient();
  const { queueUrl } = await createTestQueue(sqs, prefix, { visibilityTimeoutSeconds: 2, maxReceiveCount: 100 });
  const store = new OperatorStore({ client, tableName: TABLES.jobsTable, deadlineShards: 8 });
  const payloads = new PayloadStore(client, TABLES.payloadsTable, systemClock);
  const admin: AdminDeps = { store, sqs, queueUrl, payloadsTable: TABLES.payloadsTable, recordClient: client };
  const pool = new WorkerProcessPool({
    dynamoEndpoint: proxy.endpoint,
    sqsEndpoint: engineEndpoints().sqs,
    jobsTable: TABLES.jobsTable,
    payloadsTable: TABLES.payloadsTable,
    recordsTable: TABLES.recordsTable,
    ledgerTable: ledgerTable.tableName,
    ledgerEndpoint: engineEndpoints().dynamo,
    logRuns: true,
    leaseMs,
  });
  let snapshots = 0;
  const quietly = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch {
      return undefined;
    }
  };
  return {
    engine,
    proxy,
    pool,
    sqs,
    queueUrl,
    client,
    store,
    ledger: new EffectLedger(external, ledgerTable.tableName),
    send: async (job, payload) => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          await sendJob({ sqs, queueUrl, payloads }, { ...job.identity, jobType: job.jobType, payload });
          return;
        } catch (error) {
          if (attempt >= SEND_TRIES) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
    sweepOnce: () => quietly(() => sweep({ store, sqs, queueUrl, dueGraceMs: 0, resignalIntervalMs: 500 })),
    crash: async () => {
      await proxy.halt({ dropResponses: true });
      await engine.kill();
      await proxy.refuseConnections();
      proxy.resume();
    },
    recover: async (path) => {
      await engine.restart(path);
      await proxy.acceptConnections();
    },
    snapshot: async () => {
      snapshots += 1;
      const copy = join(root, `snapshot-${snapshots}`);
      // Between writes (see above), and stopped while copied; the requests held meanwhile go on afterwards.
      await proxy.halt({ dropResponses: false });
      engine.pause();
      try {
        await cp(engine.dataPath, copy, { recursive: true });
      } finally {
        engine.resume();
        proxy.resume();
      }
      return copy;
    },
    raiseFenceEpoch: async (reason) => {
      const action = { reason, actor: 'reliability-operator' };
      let report = await raiseFences(admin, { ...action, recordTables: [TABLES.recordsTable] });
      const totals = { epoch: report.epoch, floor: report.floor ?? 0, scanned: report.scanned, raised: report.raised };
      for (let call = 0; !report.complete; call += 1) {
        if (call >= 100) throw new Error('raise-fences did not finish in 100 calls');
        report = await raiseFences(admin, { ...action, epoch: report.epoch, cursor: report.cursor as string });
        totals.scanned += report.scanned;
        totals.raised += report.raised;
      }
      return totals;
    },
    row: (identity) => quietly(() => store.get(parseIdentity(identity))),
    record: async (identity) =>
      (
        await client.send(
          new GetCommand({ TableName: TABLES.recordsTable, Key: recordKey(identity), ConsistentRead: true }),
        )
      ).Item,
    close: async () => {
      await pool.killAll();
      await proxy.stop();
      await engine.kill();
      await ledgerTable.drop();
      client.destroy();
      external.destroy();
      sqs.destroy();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export { createDatabaseFixture, type DatabaseFixture, type SentJob };
