import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type CreateTableCommandInput, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lib/document-client.js';
import { InvalidInputError } from '../../lib/errors.js';
import { createSqsClient } from '../../lib/sqs-client.js';
import { jobsTableDefinition, payloadsTableDefinition } from '../../lib/store/index.js';
import { supportsTransactions } from '../local/capabilities.js';
import { type RunningEngine, startDynalite, startSqsEngine } from '../local/engines.js';
import { ObservingProxy } from './observing-proxy.js';

/**
 * The engines a conformance run talks to: embedded dynalite + fauxqs, or the DynamoDB endpoint given, and the
 * observing proxy in front of the DynamoDB engine through which every client of the job's process reaches it.
 */
interface ConformanceEngine {
  /** The engine itself (the harness's own setup and read-back clients, never observed). */
  readonly endpoint: string;
  readonly proxy: ObservingProxy;
  readonly sqsEndpoint: string;
  /** Where the endpoint came from, for reports: "embedded dynalite" or the URL given. */
  readonly name: string;
  stop(): Promise<void>;
}

/** Fresh tables and a queue of one job type's run, and whether the engine runs TransactWriteItems. */
interface ConformanceTables {
  readonly jobsTable: string;
  readonly payloadsTable: string;
  readonly queueUrl: string;
  readonly transactions: boolean;
  drop(): Promise<void>;
}

/**
 * Starts what a conformance run needs: dynalite unless `endpoint` names another DynamoDB (moto, DynamoDB
 * Local, AWS), and always an embedded fauxqs for the sweeper's wake-ups (nothing polls it). Loopback only.
 */
async function startConformanceEngine(options: { endpoint?: string | undefined } = {}): Promise<ConformanceEngine> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (options.endpoint) refuseSigningEngines(options.endpoint);
  const started: RunningEngine[] = [];
  try {
    const dynamo = options.endpoint ? undefined : await startDynalite();
    if (dynamo) started.push(dynamo);
    const sqs = await startSqsEngine();
    started.push(sqs);
    const endpoint = options.endpoint ?? (dynamo as RunningEngine).endpoint;
    const proxy = new ObservingProxy(endpoint);
    started.push({ endpoint, stop: () => proxy.stop() });
    return {
      endpoint,
      proxy,
      sqsEndpoint: sqs.endpoint,
      name: options.endpoint ? options.endpoint : 'embedded dynalite',
      stop: async () => {
        await Promise.all(started.map((engine) => engine.stop()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((engine) => engine.stop().catch(() => {})));
    throw error;
  }
}

/**
 * The harness observes requests through a loopback proxy that rewrites the Host header, which breaks SigV4: AWS
 * itself refuses them. Local engines (dynalite, moto, DynamoDB Local) do not check signatures.
 */
function refuseSigningEngines(endpoint: string): void {
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    throw new InvalidInputError(`DynamoDB endpoint ${endpoint} is not a URL`, [
      { path: 'endpoint', message: 'not a URL' },
    ]);
  }
  if (host === 'amazonaws.com' || host.endsWith('.amazonaws.com')) {
    throw new InvalidInputError(
      `conformance runs on a local engine (moto, DynamoDB Local), not on AWS (${host}): every request is observed through a loopback proxy, whose rewritten Host header AWS's signature check refuses`,
      [{ path: 'endpoint', message: 'must be a local DynamoDB engine' }],
    );
  }
}

/** Creates a table unless it exists (an endpoint given may already hold the job's own tables). */
async function ensureTable(client: DynamoDBDocumentClient, definition: CreateTableCommandInput): Promise<boolean> {
  try {
    await client.send(new CreateTableCommand(definition));
    return true;
  } catch (error) {
    if ((error as Error).name === 'ResourceInUseException') return false;
    throw error;
  }
}

/** Fresh work and payloads tables, the job's own tables (kept when they existed), and a queue. */
async function createConformanceTables(
  engine: ConformanceEngine,
  client: DynamoDBDocumentClient,
  sqs: SQSClient,
  userTables: readonly CreateTableCommandInput[],
): Promise<ConformanceTables> {
  const suffix = randomUUID().slice(0, 8);
  const jobsTable = `lf-conformance-jobs-${suffix}`;
  const payloadsTable = `lf-conformance-payloads-${suffix}`;
  await ensureTable(client, jobsTableDefinition(jobsTable));
  await ensureTable(client, payloadsTableDefinition(payloadsTable));
  const created = [jobsTable, payloadsTable];
  for (const definition of userTables) {
    if (await ensureTable(client, definition)) created.push(String(definition.TableName));
  }
  const queue = await sqs.send(new CreateQueueCommand({ QueueName: `lf-conformance-${suffix}` }));
  const transactions = await supportsTransactions(client, jobsTable);
  return {
    jobsTable,
    payloadsTable,
    queueUrl: queue.QueueUrl ?? '',
    transactions,
    drop: async () => {
      // On the embedded engine everything goes with the engine; elsewhere the harness removes what it made.
      if (engine.name === 'embedded dynalite') return;
      for (const table of created) await client.send(new DeleteTableCommand({ TableName: table })).catch(() => {});
    },
  };
}

/** The harness's own clients (setup and read-back; never observed as the job's requests). */
function harnessClients(engine: ConformanceEngine): { client: DynamoDBDocumentClient; sqs: SQSClient } {
  return {
    client: createDocumentClient({ endpoint: engine.endpoint }),
    sqs: createSqsClient({ endpoint: engine.sqsEndpoint }),
  };
}

export {
  type ConformanceEngine,
  type ConformanceTables,
  createConformanceTables,
  harnessClients,
  startConformanceEngine,
};
