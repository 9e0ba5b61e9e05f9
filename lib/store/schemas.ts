import * as z from 'zod';
import { identitySchema } from '../identity.js';
import { parseInputOnce, vouchFor } from '../internal/validation.js';
import type { JobEnvelope } from '../messaging/envelope.js';
import { jobTypeSchema, maxAttemptsSchema, payloadHashSchema, payloadRefSchema } from '../rules.js';
import type { NewWorkItem } from './requests.js';

const newWorkItemSchema = z
  .strictObject({
    identity: identitySchema,
    jobType: jobTypeSchema,
    payloadHash: payloadHashSchema,
    payloadRef: payloadRefSchema.optional(),
    payloadInline: z.boolean().optional(),
    maxAttempts: maxAttemptsSchema,
    availableAt: z.number().int().nonnegative().optional(),
  })
  .refine((value) => (value.payloadRef !== undefined) !== (value.payloadInline === true), {
    message: 'exactly one of payloadRef or payloadInline must be given',
    path: ['payloadRef'],
  });

/** A lease: who holds it and for how long (1 ms to 12 h), and the job type's target class. */
const leaseRequestSchema = z.object({
  targetClass: z.enum(['A', 'B', 'C', 'D']).optional(),
  owner: z.string().min(1).max(256),
  leaseMs: z
    .number()
    .int()
    .min(1)
    .max(12 * 60 * 60 * 1000),
});

/** Validates a new work item (once: a vouched item passes as is); throws InvalidInputError naming each bad field. */
function parseNewWorkItem(input: unknown): NewWorkItem {
  return parseInputOnce(newWorkItemSchema, input, 'work item');
}

/**
 * The work item a job message asks for, vouched for without a second walk: every field comes from the parsed
 * envelope, whose schemas are the item's own (a property test holds the two together). A `maxAttempts`
 * outside the rule (a hand-built job definition) gets the full check and its InvalidInputError.
 */
function newWorkItemFromEnvelope(envelope: JobEnvelope, maxAttempts: number): NewWorkItem {
  const item: NewWorkItem = {
    identity: Object.freeze({ tenantId: envelope.tenantId, operationId: envelope.operationId }),
    jobType: envelope.jobType,
    payloadHash: envelope.payloadHash,
    maxAttempts,
  };
  if ('ref' in envelope.payload) item.payloadRef = envelope.payload.ref;
  else item.payloadInline = true;
  if (!maxAttemptsSchema.safeParse(maxAttempts).success) return parseNewWorkItem(item);
  return vouchFor(newWorkItemSchema, item);
}

export { leaseRequestSchema, newWorkItemFromEnvelope, parseNewWorkItem };
