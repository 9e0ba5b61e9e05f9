import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

// The peer of the leasefence worker for figure 5: an SQS-triggered function with partial batch responses whose
// record handler is made idempotent by Powertools (the documented batch + idempotency pattern). Bundled with
// the same esbuild settings as the leasefence functions; never deployed.

const persistenceStore = new DynamoDBPersistenceLayer({ tableName: process.env.IDEMPOTENCY_TABLE ?? 'idempotency' });
const config = new IdempotencyConfig({
  eventKeyJmesPath: '[tenantId, operationId]',
  payloadValidationJmesPath: 'payload',
});

const processRecord = makeIdempotent(
  async (job: { tenantId: string; operationId: string; payload: unknown }) => ({
    outcomeCode: 'done',
    job: job.operationId,
  }),
  { persistenceStore, config },
);

/** The Lambda entry point: one idempotent call per SQS record. */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  config.registerLambdaContext(context);
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(event, (record: SQSRecord) => processRecord(JSON.parse(record.body)), processor, {
    context,
  });
};
