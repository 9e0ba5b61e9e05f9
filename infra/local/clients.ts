import { resolve } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../../lib/clock.js';
import { createDocumentClient } from '../../lib/document-client.js';
import type { ProducerDependencies } from '../../lib/messaging/producer.js';
import { createSqsClient } from '../../lib/sqs-client.js';
import { PayloadStore } from '../../lib/store/index.js';
import { LocalStackNotRunningError } from './errors.js';
import { DEFAULT_LOCAL_DIR, readLiveStackState, type StackState, stateFilePath } from './state-file.js';

/** Where to look for the running local stack. */
interface LocalStackClientsOptions {
  /** The stack's folder (its `--local-dir`): default `LEASEFENCE_LOCAL_DIR`, else `.local` under the working directory. */
  localDir?: string;
}

/** SDK clients pointed at a running local stack, its resource names, and the producer's dependencies for `sendJob`. */
interface LocalStackClients {
  /** A DocumentClient on the stack's DynamoDB engine (dynalite), with the placeholder credentials it accepts. */
  documentClient: DynamoDBDocumentClient;
  /** An SQS client on the stack's SQS engine (fauxqs). */
  sqs: SQSClient;
  /** Table names: `jobs`, `payloads` (and `examples` when the stack runs the example jobs). */
  tables: StackState['tables'];
  queueUrl: string;
  deadLetterQueueUrl: string;
  /** The admin API's base URL (no IAM locally). */
  adminUrl: string;
  /** What `sendJob` needs: `await sendJob(local.producer, { tenantId, operationId, jobType, payload })`. */
  producer: ProducerDependencies;
  /** Closes both clients' connections (call it when done, or the process may wait for idle sockets). */
  destroy(): void;
}

/**
 * Clients for the local stack that `leasefence start` (or `npm start`) is running now, found through its state
 * file (`<localDir>/stack.json`). No stack running there (no state file, or its process is gone) ▶
 * LocalStackNotRunningError saying how to start one; nothing is contacted before that check.
 * @example
 * const local = await localStackClients();
 * await sendJob(local.producer, { tenantId: 'acme', operationId: 'greet-1', jobType: 'greet', payload: { name: 'Ada' } });
 * local.destroy();
 */
async function localStackClients(options: LocalStackClientsOptions = {}): Promise<LocalStackClients> {
  const dir = resolve(options.localDir ?? process.env.LEASEFENCE_LOCAL_DIR ?? DEFAULT_LOCAL_DIR);
  const state = await readLiveStackState(dir);
  if (!state) throw new LocalStackNotRunningError(stateFilePath(dir));
  const documentClient = createDocumentClient({ endpoint: state.endpoints.dynamodb, region: state.region });
  const sqs = createSqsClient({ endpoint: state.endpoints.sqs, region: state.region });
  return {
    documentClient,
    sqs,
    tables: state.tables,
    queueUrl: state.queues.jobs,
    deadLetterQueueUrl: state.queues.deadLetter,
    adminUrl: state.endpoints.admin,
    producer: {
      sqs,
      queueUrl: state.queues.jobs,
      payloads: new PayloadStore(documentClient, state.tables.payloads, systemClock),
    },
    destroy: () => {
      documentClient.destroy();
      sqs.destroy();
    },
  };
}

export { type LocalStackClients, type LocalStackClientsOptions, localStackClients };
