/**
 * Every error leasefence throws on purpose. Callers narrow with `instanceof` or `error.code`.
 * SDK exceptions are translated here only at the storage boundary, with the stored item attached.
 */

/** Base class: a typed `code`, optional context, and the original `cause`. */
class LeasefenceError extends Error {
  readonly code: string;
  readonly context: Record<string, unknown>;

  constructor(code: string, message: string, options: { cause?: unknown; context?: Record<string, unknown> } = {}) {
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
class InvalidInputError extends LeasefenceError {
  readonly issues: InputIssue[];

  constructor(message: string, issues: InputIssue[] = [], options: { cause?: unknown } = {}) {
    super('input.invalid', message, { cause: options.cause, context: { issues } });
    this.issues = issues;
  }
}

/** Same identity, different payload hash: rejected, nothing mutated. `existing` is the stored item. */
class PayloadConflictError extends LeasefenceError {
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
class OwnershipLostError extends LeasefenceError {
  constructor(
    message: string,
    readonly current: unknown,
    options: { cause?: unknown; context?: Record<string, unknown> } = {},
  ) {
    super('ownership.lost', message, options);
  }
}

/** A protected record holds a writer epoch at or above mine: a newer claim wrote it. Stop. */
class FenceRejectedError extends LeasefenceError {
  constructor(
    message: string,
    readonly current: unknown,
    options: { cause?: unknown; context?: Record<string, unknown> } = {},
  ) {
    super('fence.rejected', message, options);
  }
}

/** The fence allowed the write but the caller's own business condition did not. */
class BusinessConditionError extends LeasefenceError {
  constructor(
    message: string,
    readonly current: unknown,
    options: { cause?: unknown; context?: Record<string, unknown> } = {},
  ) {
    super('business.condition', message, options);
  }
}

/** The item does not exist. */
class ItemNotFoundError extends LeasefenceError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('item.not_found', message, { context });
  }
}

/** The requested transition is not allowed from the item's current state (an admin 409). */
class IllegalTransitionError extends LeasefenceError {
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
class OperatorStatementRequiredError extends LeasefenceError {
  constructor(
    message: string,
    readonly statement: string,
    readonly current: unknown,
  ) {
    super('transition.statement_required', message, { context: { statement } });
  }
}

/** A job definition lacks a control its target class requires; refused at definition time. */
class JobDefinitionError extends LeasefenceError {
  constructor(message: string) {
    super('job.definition', message);
  }
}

/** The engine lacks a capability the operation needs (e.g. TransactWriteItems on dynalite). */
class CapabilityMissingError extends LeasefenceError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('engine.capability', message, options);
  }
}

/** Thrown by a job: a confirmed failure that retrying cannot fix ▶ failed_terminal. */
class TerminalJobError extends LeasefenceError {
  constructor(errorCode: string, message: string, options: { cause?: unknown } = {}) {
    super('job.terminal', message, { ...options, context: { errorCode } });
  }
}

/** Thrown by a job: a confirmed failure where the effect did NOT happen ▶ retry with backoff (terminal when exhausted). */
class RetryableJobError extends LeasefenceError {
  constructor(errorCode: string, message: string, options: { cause?: unknown } = {}) {
    super('job.retryable', message, { ...options, context: { errorCode } });
  }
}

/**
 * Thrown by a job: the effect may or may not have happened (timeout after sending, transport error).
 * Class C retries only after reconcile; class D (and any job without attempts left) parks as unknown.
 */
class AmbiguousOutcomeError extends LeasefenceError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('job.ambiguous', message, options);
  }
}

/** The deployment is missing something (e.g. no payload resolver for payloadRef jobs); the message is redelivered. */
class ConfigurationError extends LeasefenceError {
  constructor(message: string) {
    super('configuration', message);
  }
}

export {
  AmbiguousOutcomeError,
  BusinessConditionError,
  CapabilityMissingError,
  ConfigurationError,
  FenceRejectedError,
  IllegalTransitionError,
  type InputIssue,
  InvalidInputError,
  ItemNotFoundError,
  JobDefinitionError,
  LeasefenceError,
  OperatorStatementRequiredError,
  OwnershipLostError,
  PayloadConflictError,
  RetryableJobError,
  TerminalJobError,
};
