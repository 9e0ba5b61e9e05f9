import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { benchPayloadSchema, type PeerJob, sideEffectKey } from '../support/jobs.js';

// The peer of the leasefence worker entry: an SQS function with partial batch responses whose record handler is
// made idempotent by Powertools (the documented BatchProcessor + makeIdempotent pattern, the key the identity,
// the payload validated against the stored hash). Its client has the same SDK options as leasefence's handler
// (region, and for a local engine its endpoint and credentials; SDK defaults otherwise). With BENCH_RECORDS_TABLE
// the job writes its record with a plain PutItem (Powertools has no fence to put in a condition).

const endpoint = process.env.BENCH_DYNAMODB_ENDPOINT;

/** The one DynamoDB client of this container (exported so the benchmark can count its requests). */
export const client = new DynamoDBClient({
  region: process.env.AWS_REGION ?? 'us-east-1',
  ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
});
const recordsTable = process.env.BENCH_RECORDS_TABLE;
const persistenceStore = new DynamoDBPersistenceLayer({
  tableName: process.env.IDEMPOTENCY_TABLE ?? 'idempotency',
  awsSdkV3Client: client,
});
const config = new IdempotencyConfig({
  eventKeyJmesPath: '[tenantId, operationId]',
  payloadValidationJmesPath: 'payload',
});

const processJob = makeIdempotent(
  async (job: PeerJob) => {
    if (recordsTable) {
      const key = sideEffectKey(job);
      await client.send(
        new PutItemCommand({
          TableName: recordsTable,
          Item: { pk: { S: key.pk }, writtenBy: { S: 'peer' }, amountCents: { N: String(job.payload.amountCents) } },
        }),
      );
    }
    return { outcomeCode: 'done' };
  },
  { persistenceStore, config },
);

/** Per record: parse the body and validate the payload (as a Powertools parser would), then the idempotent job. */
const recordHandler = (record: SQSRecord) => {
  const job = JSON.parse(record.body) as PeerJob;
  return processJob({ ...job, payload: benchPayloadSchema.parse(job.payload) });
};

/** The Lambda entry point: one idempotent call per SQS record, failures reported per record. */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  config.registerLambdaContext(context);
  return processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context });
};
