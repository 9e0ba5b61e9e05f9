import * as z from 'zod';
import { identitySchema } from '../identity.js';
import { jobTypeSchema } from '../rules.js';
import { parseInput } from '../validation.js';
import type { NewWorkItem } from './requests.js';

/** SHA-256 in lowercase hex. */
const payloadHashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'payloadHash must be 64 lowercase hex chars (SHA-256)');

/** A caller-owned pointer to the payload (an S3 key, a row id); never the payload itself. */
const payloadRefSchema = z.string().min(1).max(1024);

const newWorkItemSchema = z
  .strictObject({
    identity: identitySchema,
    jobType: jobTypeSchema,
    payloadHash: payloadHashSchema,
    payloadRef: payloadRefSchema.optional(),
    payloadInline: z.boolean().optional(),
    maxAttempts: z.number().int().min(1).max(100),
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

/** Validates a new work item; throws InvalidInputError naming each bad field. */
function parseNewWorkItem(input: unknown): NewWorkItem {
  return parseInput(newWorkItemSchema, input, 'work item');
}

export { leaseRequestSchema, parseNewWorkItem, payloadHashSchema, payloadRefSchema };
