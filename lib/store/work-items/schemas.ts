import * as z from 'zod/mini';
import { identitySchema, operationIdSchema, type ValidIdentity } from '../../identity.js';
import { builtOnce } from '../../internal/memoize.js';
import { parseInput } from '../../internal/validation.js';
import {
  jobTypeSchema,
  jobVersionSchema,
  maxAttemptsSchema,
  type PayloadBinding,
  payloadHashSchema,
  payloadRefSchema,
} from '../../rules.js';
import type { OwnedRecordRef } from './work-item.js';

/**
 * The inputs the store takes, each a parsed type: made by the parse function here at a boundary (a test, a
 * tool, a hand-built call) or by a builder from parts a boundary already parsed, and never checked again inside.
 * The schemas are built on first use, not at import: the new work item's through z.lazy (the worker builds its rows
 * with newWorkItem, not with it), those the worker parses on every job (lease, lease duration, attempt budget)
 * through builtOnce, which costs a parse nothing (z.lazy costs each parse a call).
 */

const newWorkItemSchema = z.lazy(() =>
  z
    .strictObject({
      identity: identitySchema,
      jobType: jobTypeSchema,
      payloadHash: payloadHashSchema,
      payloadRef: z.optional(payloadRefSchema),
      payloadInline: z.optional(z.boolean()),
      maxAttempts: maxAttemptsSchema,
      availableAt: z.optional(z.number().check(z.int(), z.nonnegative())),
      /** The job version the payload was built for, bound to the row from its first write on. */
      jobVersion: z.optional(jobVersionSchema),
      /** The operation (same tenant) whose completion enqueued this one, for a successor job. */
      parentOperationId: z.optional(operationIdSchema),
      /** The approval gate: the row is created awaiting_approval, never claimed (built by approvalGateFor). */
      approval: z.optional(
        z.strictObject({
          expiresAt: z.number().check(z.int(), z.nonnegative()),
          approvers: z.enum(['anyone', 'not-producer']),
          producerId: z.optional(z.string().check(z.regex(/^[\w+=,.@-]{1,128}$/))),
        }),
      ),
    })
    .check(
      z.refine((value) => (value.payloadRef !== undefined) !== (value.payloadInline === true), {
        message: 'exactly one of payloadRef or payloadInline must be given',
        path: ['payloadRef'],
      }),
    )
    .brand<'NewWorkItem'>(),
);

/** What a new work item needs, checked; the payload body is never part of it. */
type NewWorkItem = z.output<typeof newWorkItemSchema>;

/** The fields of a new work item before parseNewWorkItem checks them (a tool's or a test's hand-built item). */
type NewWorkItemInput = z.input<typeof newWorkItemSchema>;

/** Records a job type may declare it owns: with the work item, one transaction holds at most 100 items. */
const MAX_OWNED_RECORDS = 25;

/** A lease duration: 1 ms to 12 h. */
const leaseDurationSchema = builtOnce(() =>
  z
    .number()
    .check(z.int(), z.gte(1), z.lte(12 * 60 * 60 * 1000))
    .brand<'LeaseDuration'>(),
);

/** A checked lease duration (the heartbeat extends a claim by one). */
type LeaseDuration = z.output<ReturnType<typeof leaseDurationSchema>>;

/**
 * A lease: who holds it and for how long, the job type's target class (recorded with the effect mark) and the
 * job version the claimer runs (a row bound to another version is not claimed).
 */
const leaseRequestSchema = builtOnce(() =>
  z
    .object({
      targetClass: z.optional(z.enum(['A', 'B', 'C', 'D'])),
      jobVersion: z.optional(jobVersionSchema),
      /** Class C: how long the provider keeps an idempotency key (recorded with the effect mark). */
      keyRetentionMs: z.optional(z.number().check(z.int(), z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
      /** The records the job type owns for the claimed identity, parsed where they are derived (lib/fenced). */
      ownedRecords: z.optional(z.array(z.custom<OwnedRecordRef>()).check(z.maxLength(MAX_OWNED_RECORDS))),
      owner: z.string().check(z.minLength(1), z.maxLength(256)),
      leaseMs: leaseDurationSchema(),
    })
    .brand<'LeaseRequest'>(),
);

/** A checked lease request. */
type LeaseRequest = z.output<ReturnType<typeof leaseRequestSchema>>;

/** Validates a new work item; throws InvalidInputError naming each bad field. */
function parseNewWorkItem(input: unknown): NewWorkItem {
  return parseInput(newWorkItemSchema, input, 'work item');
}

/** Validates a lease request; throws InvalidInputError naming each bad field (`invalid lease: owner …`). */
function parseLease(input: unknown): LeaseRequest {
  return parseInput(leaseRequestSchema(), input, 'lease');
}

/** Validates a lease duration; throws InvalidInputError otherwise. */
function parseLeaseDuration(input: unknown): LeaseDuration {
  return parseInput(leaseDurationSchema(), input, 'lease duration');
}

/** The attempt budget a new work item records, as newWorkItemSchema names it (`maxAttempts`). */
const attemptBudgetSchema = builtOnce(() => z.strictObject({ maxAttempts: maxAttemptsSchema }));

/** A job's type, payload binding and version, as its boundary parsed them (an SQS message, a producer call). */
interface JobBinding {
  readonly jobType: string;
  readonly payloadHash: string;
  readonly payload: PayloadBinding;
  /** The job version the payload was built for; the row records it (the worker then runs only that version). */
  readonly jobVersion?: number | undefined;
}

/**
 * The one builder from a job to its new work item (the worker's first delivery, a switched-off type's row, a
 * delayed job's row): the identity and binding come parsed, so only `maxAttempts` is checked here, because a
 * job definition is a public type that can be built by hand. Outside 1..100 ▶ InvalidInputError naming
 * `maxAttempts`, nothing written. With `approval` the row is created awaiting_approval (never claimed).
 */
function newWorkItem(
  identity: ValidIdentity,
  job: JobBinding,
  maxAttempts: number,
  availableAt?: number,
  approval?: NewWorkItem['approval'],
): NewWorkItem {
  parseInput(attemptBudgetSchema(), { maxAttempts }, 'work item');
  // Every other field comes parsed: the identity is a ValidIdentity, the binding passed the same field schemas.
  const item = { identity, jobType: job.jobType, payloadHash: job.payloadHash, maxAttempts } as NewWorkItem;
  if ('ref' in job.payload) item.payloadRef = job.payload.ref;
  else item.payloadInline = true;
  if (availableAt !== undefined) item.availableAt = availableAt;
  if (job.jobVersion !== undefined) item.jobVersion = job.jobVersion;
  // Built by approvalGateFor from the job definition (parsed at defineJob) and the clock: not checked again.
  if (approval !== undefined) item.approval = approval;
  return item;
}

export {
  type JobBinding,
  type LeaseDuration,
  type LeaseRequest,
  MAX_OWNED_RECORDS,
  type NewWorkItem,
  type NewWorkItemInput,
  newWorkItem,
  parseLease,
  parseLeaseDuration,
  parseNewWorkItem,
};
