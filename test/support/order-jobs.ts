import * as z from 'zod';
import { RetryableJobError } from '../../lib/errors.js';
import { defineJob, type JobDefinition, type JobDefinitionInput } from '../../lib/job-definition.js';

/** The payload of the order fixtures: one order id. */
type OrderPayload = { order: string };

/** The retry settings of a fixture that retries at once (no backoff, three attempts): a test polls the retry now. */
const RETRY_AT_ONCE = { maxAttempts: 3, retry: { baseDelayMs: 0, maxDelayMs: 0 } } as const;

/** The retryable failure an order fixture throws on the attempt it fails ("the carrier is busy"). */
function carrierBusy(): RetryableJobError {
  return new RetryableJobError('carrier_busy', 'try again');
}

/**
 * A class B job of version 1 whose payload is one order id (`{ order }`, strict), running `run`; `options` adds or
 * overrides the rest of the definition (RETRY_AT_ONCE, another target).
 */
function defineOrderJob(
  type: string,
  run: JobDefinitionInput<OrderPayload>['run'],
  options: Partial<Omit<JobDefinitionInput<OrderPayload>, 'type' | 'payload' | 'run'>> = {},
): JobDefinition<OrderPayload> {
  return defineJob({
    type,
    version: 1,
    target: 'B',
    payload: z.strictObject({ order: z.string() }),
    run,
    ...options,
  });
}

export { carrierBusy, defineOrderJob, type OrderPayload, RETRY_AT_ONCE };
