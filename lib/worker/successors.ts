import * as z from 'zod/mini';
import { approvalGateFor } from '../approval-policy.js';
import { InvalidInputError, isLeasefenceError, SuccessorRefusedError } from '../errors.js';
import { canonicalJson, payloadHash } from '../hashing.js';
import { type JobIdentity, operationIdSchema, parseIdentity, type ValidIdentity } from '../identity.js';
import { describeIssues } from '../internal/issue-paths.js';
import { parseInput } from '../internal/validation.js';
import type { JobRegistry, SuccessorOptions } from '../job-definition.js';
import { MAX_SUCCESSOR_PAYLOAD_BYTES, successorNameSchema } from '../rules.js';
import type { Claim, ValidOutcome } from '../store/index.js';
import { MAX_SUCCESSORS, type NewSuccessor, newWorkItem } from '../store/index.js';
import { type CompletionDependencies, completeWithSuccessors, type SuccessorWake } from './successor-completion.js';

// Built on first use (z.lazy: the same checks and issues), not at import: a cold start whose first events never
// reach this schema does not pay for building it (BENCHMARKS.md figure 5).
const successorOptionsSchema = z.lazy(() =>
  z.strictObject({ name: z.optional(successorNameSchema), operationId: z.optional(operationIdSchema) }).check(
    z.refine((options) => options.name === undefined || options.operationId === undefined, {
      message: 'give a name or an operationId, not both',
      path: ['operationId'],
    }),
  ),
);

/** What the buffer needs to check a successor where the job asks for it. */
interface SuccessorBufferDependencies {
  readonly claim: Claim;
  /** The job types this worker runs: a successor's type must be one (its schema and attempt budget come from it). */
  readonly registry?: Pick<JobRegistry, 'get'> | undefined;
  /** Successor bodies are stored inline: without the payloads table no successor can be written. */
  readonly payloadsAvailable: boolean;
  /** The store's clock: a successor of a type with an approval gate is written awaiting approval until now + its wait. */
  readonly now?: () => number;
}

/**
 * The successors one attempt asked for (`ctx.enqueue`), each checked when asked (SuccessorRefusedError, nothing
 * written) and written only with the parent's completion. Asking twice for the same identity with the same job is
 * one successor; with another job it is refused.
 */
class SuccessorBuffer {
  private readonly byId = new Map<string, NewSuccessor>();

  constructor(private readonly deps: SuccessorBufferDependencies) {}

  /** Checks and keeps one successor; returns its identity. SuccessorRefusedError names what is wrong. */
  add(jobType: string, payload: unknown, options: SuccessorOptions = {}): JobIdentity {
    const valid = refuseInvalid(() => parseInput(successorOptionsSchema, options, 'successor options'));
    const definition = this.deps.registry?.get(jobType);
    if (!definition) throw refusal(`job type ${JSON.stringify(jobType)} is not registered with this worker`, 'jobType');
    if (!this.deps.payloadsAvailable)
      throw refusal('successors need the payloads table (their bodies are stored inline)', 'payloads');
    const identity = this.successorIdentity(
      valid.operationId ?? `${this.deps.claim.identity.operationId}/${valid.name ?? definition.type}`,
    );
    const parsed = z.safeParse(definition.payload, payload);
    if (!parsed.success)
      throw refusal(
        `successor payload failed its schema at ${describeIssues(definition.payload, parsed.error.issues)}`,
        'payload',
      );
    const bytes = Buffer.byteLength(
      refuseInvalid(() => canonicalJson(payload)),
      'utf8',
    );
    if (bytes > MAX_SUCCESSOR_PAYLOAD_BYTES)
      throw refusal(`successor payload is ${bytes} bytes of JSON; at most ${MAX_SUCCESSOR_PAYLOAD_BYTES}`, 'payload');
    const hash = payloadHash(payload);
    const earlier = this.byId.get(identity.operationId);
    if (earlier) {
      if (earlier.item.jobType === definition.type && earlier.item.payloadHash === hash) return identity;
      throw refusal(
        `successor ${identity.operationId} was already asked for with another job or payload in this attempt`,
        'name',
      );
    }
    if (this.byId.size >= MAX_SUCCESSORS)
      throw refusal(`one completion enqueues at most ${MAX_SUCCESSORS} successors`, 'count');
    // A gated successor waits for approval like any other job of its type (no producer principal: the parent job).
    const gate = approvalGateFor(definition.approval, parsed.data, this.deps.now?.() ?? Date.now());
    // Bound to the version whose schema checked the payload here: during a rolling deploy a worker of another
    // version never runs it (the claim is conditional on the row's version), as for every other row.
    const binding = {
      jobType: definition.type,
      payloadHash: hash,
      payload: { inline: true as const },
      jobVersion: definition.version,
    };
    const item = {
      ...newWorkItem(identity, binding, definition.maxAttempts, undefined, gate),
      parentOperationId: this.deps.claim.identity.operationId,
    };
    this.byId.set(identity.operationId, { item, body: payload });
    return identity;
  }

  /** How many successors the completion will enqueue. */
  get size(): number {
    return this.byId.size;
  }

  /** The successors, in the order first asked for. */
  list(): readonly NewSuccessor[] {
    return [...this.byId.values()];
  }

  private successorIdentity(operationId: string): ValidIdentity {
    const parent = this.deps.claim.identity;
    if (operationId === parent.operationId)
      throw refusal("a successor cannot have its parent's identity", 'operationId');
    return refuseInvalid(() => parseIdentity({ tenantId: parent.tenantId, operationId }));
  }
}

function refusal(message: string, path: string): SuccessorRefusedError {
  return new SuccessorRefusedError(`successor refused: ${message}; nothing was written`, [{ path, message }]);
}

/** Runs a parse and turns its InvalidInputError into a SuccessorRefusedError with the same issues. */
function refuseInvalid<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (isLeasefenceError(error, InvalidInputError)) {
      throw new SuccessorRefusedError(`successor refused: ${error.message}; nothing was written`, error.issues, {
        cause: error,
      });
    }
    if (error instanceof Error)
      throw new SuccessorRefusedError(`successor refused: ${error.message}; nothing was written`, [], { cause: error });
    throw error;
  }
}

/**
 * Completes the claim under its fence, with the buffered successors when there are any (the store writes them
 * with the completion, each once), then sends their wake-ups: only after the commit, and a lost one is found
 * again by the sweeper (the rows are queued and due).
 */
async function completeClaim(
  deps: CompletionDependencies,
  claim: Claim,
  outcome: ValidOutcome,
  successors: SuccessorBuffer,
): Promise<void> {
  if (successors.size === 0) {
    await deps.store.complete(claim, outcome);
    return;
  }
  await completeWithSuccessors(deps, claim, outcome, successors.list());
}

export { type CompletionDependencies, completeClaim, SuccessorBuffer, type SuccessorWake };
