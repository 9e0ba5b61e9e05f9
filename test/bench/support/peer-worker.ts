import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { countRequests, type RequestCounter } from '../../support/request-counter.js';
import type { BenchEngine } from './bench-engine.js';
import { type ConditionFailureCounter, countConditionFailures } from './condition-failures.js';
import { benchPayloadSchema, type PeerJob, sideEffectKey } from './jobs.js';
import type { JobHooks } from './leasefence-worker.js';

/** What one Powertools-idempotency worker ("Lambda container") is built from. */
interface PeerWorkerOptions {
  engine: BenchEngine;
  /** The idempotency table (partition key `id`, string). */
  tableName: string;
  /** Table of side-effect records; absent = protocol only. */
  sideEffectTable?: string;
  /**
   * What the synthetic Lambda context reports as remaining time: Powertools sets the in-progress expiry
   * (its "lease") to now + this. Default 30 s, the same as the leasefence job's lease.
   */
  remainingTimeMs?: number;
  workerId?: string;
  hooks?: JobHooks;
  /**
   * The SDK's cacheMiddleware on the peer's client: off by default, as Powertools makes its client and as
   * leasefence makes its own (the judged comparison); on only for figure 2's reported row of what it is worth.
   */
  cacheMiddleware?: boolean;
}

/** The peer: the same job wrapped by makeIdempotent, on its own counted DynamoDBClient. */
interface PeerWorker {
  readonly counter: RequestCounter;
  readonly conditionFailures: ConditionFailureCounter;
  readonly client: DynamoDBClient;
  invoke(job: PeerJob): Promise<{ outcomeCode: string }>;
  /**
   * What an SQS handler with Powertools does per record: parse the body, validate the payload against the job's
   * schema (as the Powertools parser would), then the idempotent job. The throughput figure uses this.
   */
  handleBody(body: string): Promise<{ outcomeCode: string }>;
}

/** A Lambda context whose remaining time is fixed (the peer reads it once per invocation). */
function syntheticContext(remainingTimeMs: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'bench-peer',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-peer',
    memoryLimitInMB: '512',
    awsRequestId: 'bench',
    logGroupName: '/aws/lambda/bench-peer',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => remainingTimeMs,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/**
 * Powertools idempotency around the benchmark job: the key is the identity (`[tenantId, operationId]`),
 * the payload is validated against the stored hash (`payloadValidationJmesPath`), like leasefence's
 * payload binding. The side effect is a plain PutItem: Powertools has no fence to put in its condition.
 */
function createPeerWorker(options: PeerWorkerOptions): PeerWorker {
  const client = options.engine.rawClient({ cacheMiddleware: options.cacheMiddleware === true });
  const workerId = options.workerId ?? 'bench-peer';
  const hooks = options.hooks ?? {};
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: options.tableName, awsSdkV3Client: client });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[tenantId, operationId]',
    payloadValidationJmesPath: 'payload',
  });
  config.registerLambdaContext(syntheticContext(options.remainingTimeMs ?? 30_000));
  const sideEffectTable = options.sideEffectTable;
  const run = async (job: PeerJob): Promise<{ outcomeCode: string }> => {
    const identity = { tenantId: job.tenantId, operationId: job.operationId };
    await hooks.beforeEffect?.(identity);
    if (sideEffectTable !== undefined) {
      await client.send(
        new PutItemCommand({
          TableName: sideEffectTable,
          Item: {
            pk: { S: sideEffectKey(identity).pk },
            writtenBy: { S: workerId },
            amountCents: { N: String(job.payload.amountCents) },
          },
        }),
      );
      hooks.onEffect?.(identity);
    }
    return { outcomeCode: 'done' };
  };
  const invoke = makeIdempotent(run, { persistenceStore, config, keyPrefix: 'bench' });
  // countRequests only touches the middleware stack, which both client kinds share in shape.
  const counter = countRequests(client as unknown as DynamoDBDocumentClient);
  const handleBody = (body: string) => {
    const job = JSON.parse(body) as PeerJob;
    return invoke({ ...job, payload: benchPayloadSchema.parse(job.payload) });
  };
  return { counter, conditionFailures: countConditionFailures(client), client, invoke, handleBody };
}

export { createPeerWorker, type PeerWorker, type PeerWorkerOptions, syntheticContext };
