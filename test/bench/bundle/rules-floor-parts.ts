import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';

// What both rules-floor entries hold besides their DynamoDB client: the parts every leasefence Lambda must have by
// the project's rules (zod/mini at the boundary, Powertools Logger, Metrics and batch), with no leasefence code, so
// figure 5 can time the floor those rules set. Written independently of lib/ (importing it would pull leasefence in).

/**
 * The SQS message envelope, the same fields and checks as leasefence's (lib/messaging/envelope.ts), built at
 * module scope: the boundary check a worker must make on every message.
 */
const envelopeSchema = z
  .strictObject({
    v: z.literal(1),
    kind: z.enum(['job', 'wake']),
    tenantId: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)),
    operationId: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._:/=+@-]{0,255}$/)),
    jobType: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)),
    jobVersion: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1_000_000))),
    payloadHash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    payload: z.union([
      z.strictObject({ ref: z.string().check(z.minLength(1), z.maxLength(1024)) }),
      z.strictObject({ inline: z.literal(true) }),
      z.strictObject({ body: z.json() }),
    ]),
  })
  .check(
    z.refine((envelope) => envelope.kind === 'job' || !('body' in envelope.payload), {
      message: 'only a kind "job" message may carry a payload body',
      path: ['payload'],
    }),
  );

/** A message that passed the envelope schema. */
type FloorEnvelope = z.output<typeof envelopeSchema>;

const logger = new Logger({ serviceName: 'leasefence-floor' });
const metrics = new Metrics({ namespace: 'LeasefenceFloor', serviceName: 'leasefence-floor' });

/** The jobs table the record handler writes to (read at import, as the functions read theirs). */
const JOBS_TABLE = process.env.LEASEFENCE_JOBS_TABLE ?? 'jobs';

/**
 * An SQS handler with partial batch responses: each record's body parsed with the envelope schema, written once by
 * `put`, one INFO line and one metric per record, the stored metrics published per event.
 */
function floorHandler(
  put: (envelope: FloorEnvelope) => Promise<unknown>,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const handleRecord = async (record: SQSRecord) => {
    const envelope = envelopeSchema.parse(JSON.parse(record.body));
    await put(envelope);
    logger.info('job handled', { tenantId: envelope.tenantId, operationId: envelope.operationId });
    metrics.addMetric('jobsHandled', MetricUnit.Count, 1);
  };
  return async (event, context) => {
    try {
      return await processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { context });
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

export { type FloorEnvelope, floorHandler, JOBS_TABLE };
