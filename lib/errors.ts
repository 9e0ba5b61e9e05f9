/**
 * Every error leasefence throws on purpose. Callers narrow with `instanceof` or `error.code`.
 * SDK exceptions are translated here only at the storage boundary, with the stored item attached.
 */

/** Every `code` a LeasefenceError carries, one per subclass: `error.code` narrows to one of these. */
const ErrorCode = {
  invalidInput: 'input.invalid',
  payloadConflict: 'payload.conflict',
  ownershipLost: 'ownership.lost',
  fenceRejected: 'fence.rejected',
  businessCondition: 'business.condition',
  itemNotFound: 'item.not_found',
  unexpectedItem: 'item.unexpected',
  illegalTransition: 'transition.illegal',
  statementRequired: 'transition.statement_required',
  leaseInDoubt: 'lease.in_doubt',
  jobDefinition: 'job.definition',
  capabilityMissing: 'engine.capability',
  terminalJob: 'job.terminal',
  retryableJob: 'job.retryable',
  ambiguousOutcome: 'job.ambiguous',
  configuration: 'configuration',
  transactionCancelled: 'transaction.cancelled',
  transactionTokenReused: 'transaction.token_reused',
  batchIncomplete: 'fenced_batch.incomplete',
} as const;
type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** What every LeasefenceError may carry besides its message. */
interface LeasefenceErrorOptions {
  cause?: unknown;
  context?: Record<string, unknown>;
}

/** Base class: a typed `code`, optional context, and the original `cause`. Never thrown bare: throw a subclass. */
abstract class LeasefenceError<Code extends ErrorCode = ErrorCode> extends Error {
  readonly code: Code;
  readonly context: Record<string, unknown>;

  constructor(code: Code, message: string, options: LeasefenceErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.context = options.context ?? {};
  }
}

/** One problem found by validation: where, and what is wrong. */
interface InputIssue {
  path: string;
  message: string;
}

/** Input failed validation; nothing was written. `issues` names every offending field. */
class InvalidInputError extends LeasefenceError<'input.invalid'> {
  readonly issues: InputIssue[];

  constructor(message: string, issues: InputIssue[] = [], options: { cause?: unknown } = {}) {
    super('input.invalid', message, { cause: options.cause, context: { issues } });
    this.issues = issues;
  }
}

/** Same identity, different payload hash: rejected, nothing mutated. `existing` is the stored item. */
class PayloadConflictError extends LeasefenceError<'payload.conflict'> {
  constructor(
    message: string,
    readonly existing: unknown,
    options: { cause?: unknown } = {},
  ) {
    super('payload.conflict', message, { cause: options.cause });
  }
}

/**
 * The work item no longer carries my fence in the claimed state: another claim, a cancel or the sweeper
 * superseded me. Stop work; never retry the write. `current` is the item as read back (may be undefined).
 */
class OwnershipLostError extends LeasefenceError<'ownership.lost'> {
  constructor(
    message: string,
    readonly current: unknown,
    options: { cause?: unknown; context?: Record<string, unknown> } = {},
  ) {
    super('ownership.lost', message, options);
  }
}

/** A protected record holds a writer epoch at or above mine: a newer claim wrote it. Stop. */
class FenceRejectedError extends LeasefenceError<'fence.rejected'> {
  constructor(
    message: string,
    readonly current: unknown,
    options: { cause?: unknown; context?: Record<string, unknown> } = {},
  ) {
    super('fence.rejected', message, options);
  }
}

/** The fence allowed the write but the caller's own business condition did not. */
class BusinessConditionError extends LeasefenceError<'business.condition'> {
  constructor(
    message: string,
    readonly current: unknown,
    options: { cause?: unknown; context?: Record<string, unknown> } = {},
  ) {
    super('business.condition', message, options);
  }
}

/** The item does not exist. */
class ItemNotFoundError extends LeasefenceError<'item.not_found'> {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('item.not_found', message, { context });
  }
}

/** The requested transition is not allowed from the item's current state (an admin 409). */
class IllegalTransitionError extends LeasefenceError<'transition.illegal'> {
  constructor(
    message: string,
    readonly current: unknown,
  ) {
    super('transition.illegal', message);
  }
}

/**
 * An operator action needs an explicit statement it did not carry (e.g. retrying a class D item whose effect
 * may have happened needs "the effect did not happen"). Nothing was changed (an admin 409).
 */
class OperatorStatementRequiredError extends LeasefenceError<'transition.statement_required'> {
  constructor(
    message: string,
    readonly statement: string,
    readonly current: unknown,
  ) {
    super('transition.statement_required', message, { context: { statement } });
  }
}

/**
 * The attempt is in lease doubt: a renewal failed, or the local lease deadline passed without a confirmed
 * renewal, so another worker may already hold the job. No new effect starts (no record write, transaction or
 * step is sent); the attempt ends without completing and the lease lapses to the next claim.
 */
class LeaseInDoubtError extends LeasefenceError<'lease.in_doubt'> {
  constructor(message: string, options: LeasefenceErrorOptions = {}) {
    super('lease.in_doubt', message, options);
  }
}

/** A job definition lacks a control its target class requires; refused at definition time. */
class JobDefinitionError extends LeasefenceError<'job.definition'> {
  constructor(message: string) {
    super('job.definition', message);
  }
}

/** The engine lacks a capability the operation needs (e.g. TransactWriteItems on dynalite). */
class CapabilityMissingError extends LeasefenceError<'engine.capability'> {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('engine.capability', message, options);
  }
}

/** Thrown by a job: a confirmed failure that retrying cannot fix ▶ failed_terminal. */
class TerminalJobError extends LeasefenceError<'job.terminal'> {
  constructor(errorCode: string, message: string, options: { cause?: unknown } = {}) {
    super('job.terminal', message, { ...options, context: { errorCode } });
  }
}

/** Thrown by a job: a confirmed failure where the effect did NOT happen ▶ retry with backoff (terminal when exhausted). */
class RetryableJobError extends LeasefenceError<'job.retryable'> {
  constructor(errorCode: string, message: string, options: { cause?: unknown } = {}) {
    super('job.retryable', message, { ...options, context: { errorCode } });
  }
}

/**
 * Thrown by a job: the effect may or may not have happened (timeout after sending, transport error).
 * Class C retries only after reconcile; class D (and any job without attempts left) parks as unknown.
 */
class AmbiguousOutcomeError extends LeasefenceError<'job.ambiguous'> {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('job.ambiguous', message, options);
  }
}

/** The deployment is missing something (e.g. no payload resolver for payloadRef jobs); the message is redelivered. */
class ConfigurationError extends LeasefenceError<'configuration'> {
  constructor(message: string) {
    super('configuration', message);
  }
}

/** The key of a work item holds something that is not a work item (another writer shares the table). Nothing was written. */
class UnexpectedItemError extends LeasefenceError<'item.unexpected'> {
  constructor(
    message: string,
    readonly current: unknown,
  ) {
    super('item.unexpected', message);
  }
}

/** A fenced transaction was cancelled for a reason retrying cannot fix (e.g. a validation error); nothing was written. */
class TransactionCancelledError extends LeasefenceError<'transaction.cancelled'> {
  constructor(message: string, options: LeasefenceErrorOptions = {}) {
    super('transaction.cancelled', message, options);
  }
}

/** A transaction's request token was reused with other parameters (a step re-run differently); nothing was written. */
class TransactionTokenReusedError extends LeasefenceError<'transaction.token_reused'> {
  constructor(message: string, options: LeasefenceErrorOptions = {}) {
    super('transaction.token_reused', message, options);
  }
}

/** A fenced batch stopped with writes failed for reasons other than the fence or a condition; `context.report` says which. */
class BatchIncompleteError extends LeasefenceError<'fenced_batch.incomplete'> {
  constructor(message: string, options: LeasefenceErrorOptions = {}) {
    super('fenced_batch.incomplete', message, options);
  }
}

/** Every error class leasefence throws, for callers that map them (e.g. to HTTP statuses). */
type AnyLeasefenceError =
  | InvalidInputError
  | PayloadConflictError
  | OwnershipLostError
  | FenceRejectedError
  | BusinessConditionError
  | ItemNotFoundError
  | UnexpectedItemError
  | IllegalTransitionError
  | OperatorStatementRequiredError
  | LeaseInDoubtError
  | JobDefinitionError
  | CapabilityMissingError
  | TerminalJobError
  | RetryableJobError
  | AmbiguousOutcomeError
  | ConfigurationError
  | TransactionCancelledError
  | TransactionTokenReusedError
  | BatchIncompleteError;

export {
  AmbiguousOutcomeError,
  type AnyLeasefenceError,
  BatchIncompleteError,
  BusinessConditionError,
  CapabilityMissingError,
  ConfigurationError,
  ErrorCode,
  FenceRejectedError,
  IllegalTransitionError,
  type InputIssue,
  InvalidInputError,
  ItemNotFoundError,
  JobDefinitionError,
  LeasefenceError,
  type LeasefenceErrorOptions,
  LeaseInDoubtError,
  OperatorStatementRequiredError,
  OwnershipLostError,
  PayloadConflictError,
  RetryableJobError,
  TerminalJobError,
  TransactionCancelledError,
  TransactionTokenReusedError,
  UnexpectedItemError,
};
