import { InvalidInputError } from '../errors.js';
import type { WorkItem } from '../store/index.js';
import { ENVELOPE_VERSION, type JobEnvelope } from './envelope.js';

/** The longest DelaySeconds SQS accepts on a message (15 minutes); later wake-ups are the sweeper's. */
const SQS_MAX_DELAY_SECONDS = 900;

/** The fields of a work row a wake-up names: identity, job type and payload binding, never a body. */
type WakeSubject = Pick<
  WorkItem,
  'tenantId' | 'operationId' | 'jobType' | 'jobVersion' | 'payloadHash' | 'payloadRef' | 'payloadInline'
>;

/**
 * The `wake` envelope for an existing item, naming the job version bound to the row (a worker running another
 * quarantines the wake-up). A row with neither payloadRef nor payloadInline ▶ InvalidInputError.
 */
function wakeEnvelope(item: WakeSubject): JobEnvelope {
  if (item.payloadRef === undefined && item.payloadInline !== true) {
    throw new InvalidInputError('work row has no payload binding (neither payloadRef nor payloadInline)', [
      { path: 'payloadRef', message: 'missing' },
    ]);
  }
  return {
    v: ENVELOPE_VERSION,
    kind: 'wake',
    tenantId: item.tenantId,
    operationId: item.operationId,
    jobType: item.jobType,
    ...(item.jobVersion !== undefined ? { jobVersion: item.jobVersion } : {}),
    payloadHash: item.payloadHash,
    payload: item.payloadRef !== undefined ? { ref: item.payloadRef } : { inline: true },
  };
}

export { SQS_MAX_DELAY_SECONDS, type WakeSubject, wakeEnvelope };
