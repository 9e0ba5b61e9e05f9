import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../lib/document-client.js';
import { createLeasefenceTablePair, waitUntilActive } from '../../support/tables.js';

/** Credentials dynalite accepts (any); the same for every client of the benchmark. */
const LOCAL_CREDENTIALS = { accessKeyId: 'bench', secretAccessKey: 'bench' };

/** The leasefence tables of one scenario. */
interface LeasefenceTables {
  jobsTable: string;
  payloadsTable: string;
}

/**
 * One embedded dynalite on loopback for a scenario group, plus factories for its tables and clients.
 * Every client made here is destroyed by `stop()`, so the process can exit.
 */
interface BenchEngine {
  readonly endpoint: string;
  /** The engine's process when it runs in one of its own (its CPU is read from /proc). */
  readonly enginePid: number | undefined;
  /** CPU ms used so far by the engine's own process; undefined when it runs in this process. */
  engineCpuMs(): number | undefined;
  /** Jobs + payloads tables from the library's own definitions. */
  createLeasefenceTables(prefix: string): Promise<LeasefenceTables>;
  /** A table keyed by one string attribute (`id` for the Powertools peer, `pk` for side-effect records). */
  createKeyedTable(prefix: string, keyAttribute: string): Promise<string>;
  /** A leasefence DocumentClient on this engine, made as the library makes it (lib/aws-clients.ts: SDK defaults). */
  documentClient(): DynamoDBDocumentClient;
  /** A plain DynamoDBClient on this engine (what the Powertools persistence layer takes), SDK defaults unless told. */
  rawClient(options?: { cacheMiddleware?: boolean }): DynamoDBClient;
  stop(): Promise<void>;
}

/** dynalite (createTableMs 0) makes a table ACTIVE at once: poll briefly. */
const LOCAL_WAIT = { attempts: 50, intervalMs: 20 };

/** CPU ms (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    return Number.isFinite(ticks) ? ticks * 10 : undefined; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * Table and client factories on an engine already listening at `endpoint` (started by this process or by a
 * parent that passes its pid). Every client made here is destroyed by `stop()`, which then stops the engine
 * when `engine.stop` is given.
 */
function attachBenchEngine(engine: {
  endpoint: string;
  pid?: number | undefined;
  stop?: () => Promise<void>;
}): BenchEngine {
  const endpoint = engine.endpoint;
  const clients: Array<{ destroy(): void }> = [];
  const admin = createDocumentClient({ endpoint });
  clients.push(admin);
  const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  return {
    endpoint,
    enginePid: engine.pid,
    engineCpuMs: () => (engine.pid !== undefined ? processCpuMs(engine.pid) : undefined),
    createLeasefenceTables: async (prefix) => {
      const jobsTable = unique(`${prefix}-jobs`);
      const payloadsTable = unique(`${prefix}-payloads`);
      await createLeasefenceTablePair(admin, { jobsTable, payloadsTable }, LOCAL_WAIT);
      return { jobsTable, payloadsTable };
    },
    createKeyedTable: async (prefix, keyAttribute) => {
      const tableName = unique(prefix);
      await admin.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [{ AttributeName: keyAttribute, KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: keyAttribute, AttributeType: 'S' }],
        }),
      );
      await waitUntilActive(admin, tableName, LOCAL_WAIT);
      return tableName;
    },
    documentClient: () => {
      const client = createDocumentClient({ endpoint });
      clients.push(client);
      return client;
    },
    rawClient: (options = {}) => {
      const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: LOCAL_CREDENTIALS, ...options });
      clients.push(client);
      return client;
    },
    stop: async () => {
      for (const client of clients) client.destroy();
      await engine.stop?.();
    },
  };
}

export { attachBenchEngine, type BenchEngine, type LeasefenceTables, processCpuMs };
