/**
 * Every error leasefence throws on purpose, and how to recognise one. Recognise with `isLeasefenceError(error,
 * Class)`: it reads a brand registered with `Symbol.for` and the error's `code`, so it holds across two copies of
 * the package (a jobs module loaded through tsx, a second install), where `instanceof` holds within one copy only.
 * Each error carries typed fields (`errorCode`, `reason`, `superseded`, …), never an untyped bag.
 * SDK exceptions are translated here only at the storage boundary, with the stored item attached.
 */
import type { FenceRejectReason, FenceRule } from './fenced/fence-terms.js';

/** The brand every leasefence error carries; registered, so every copy of the package holds the same symbol. */
const LEASEFENCE_ERROR_BRAND: unique symbol = Symbol.for('leasefence.error');

/** What every LeasefenceError may carry besides its message and its own fields. */
interface LeasefenceErrorOptions {
  cause?: unknown;
}

/**
 * Base class of every error of leasefence (the library's, and the CLI's and local stack's with their own codes):
 * a typed `code`, the original `cause`, and the brand. Never thrown bare: throw a subclass.
 */
abstract class LeasefenceError<Code extends string = LeasefenceErrorCode> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options: LeasefenceErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }

  /** The registered brand `isLeasefenceError` reads (a prototype getter: not copied, not printed). */
  get [LEASEFENCE_ERROR_BRAND](): true {
    return true;
  }
}

/** A class of leasefence error as `leasefenceError(code)` makes it: its instances' code is also its static `code`. */
type LeasefenceErrorClass<Code extends string = string> = (abstract new (
  ...args: never[]
) => LeasefenceError<Code>) & { readonly code: Code };

/**
 * The base class of one error with a fixed `code` (also its static `code`, which the table below and
 * `isLeasefenceError` read). Subclasses add their constructor and typed fields.
 */
function leasefenceError<const Code extends string>(
  code: Code,
): (abstract new (
  message: string,
  options?: LeasefenceErrorOptions,
) => LeasefenceError<Code>) & { readonly code: Code } {
  abstract class WithCode extends LeasefenceError<Code> {
    static readonly code = code;

    constructor(message: string, options?: LeasefenceErrorOptions) {
      super(code, message, options);
    }
  }
  return WithCode;
}

/**
 * True when `value` is a leasefence error — and, given `Class`, one with that class's code, narrowed to it — from
 * any copy of the package: judged by the registered brand and the code, never by `instanceof` alone.
 */
function isLeasefenceError(value: unknown): value is LeasefenceError<string>;
function isLeasefenceError<Class extends LeasefenceErrorClass>(
  value: unknown,
  Class: Class,
): value is InstanceType<Class>;
function isLeasefenceError(value: unknown, Class?: LeasefenceErrorClass): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const branded = value as { [LEASEFENCE_ERROR_BRAND]?: unknown; code?: unknown };
  if (branded[LEASEFENCE_ERROR_BRAND] !== true || typeof branded.code !== 'string') return false;
  return Class === undefined || branded.code === Class.code;
}

/** One problem found by validation: where, and what is wrong. */
interface InputIssue {
  path: string;
  message: string;
}

/** Input failed validation; nothing was written. `issues` names every offending field. */
class InvalidInputError extends leasefenceError('input.invalid') {
  constructor(
    message: string,
    readonly issues: InputIssue[] = [],
    options: LeasefenceErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** Same identity, different payload hash: rejected, nothing mutated. `existing` is the stored item. */
class PayloadConflictError extends leasefenceError('payload.conflict') {
  constructor(
    message: string,
    readonly existing: unknown,
    options: LeasefenceErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** Which holder write found its fence gone, and what the work item showed instead. */
interface OwnershipLoss {
  /** The transition (or transaction label) that was refused. */
  readonly transition?: string;
  /** The fence of the claim that tried to write. */
  readonly fence?: number;
  /** The fence and state the item showed, as read back (not validated: the key may hold anything). */
  readonly currentFence?: unknown;
  readonly currentState?: unknown;
}

/**
 * The work item no longer carries my fence in the claimed state: another claim, a cancel or the sweeper
 * superseded me. Stop work; never retry the write. `current` is the item as read back (may be undefined).
 */
class OwnershipLostError extends leasefenceError('ownership.lost') {
  declare readonly transition?: string;
  declare readonly fence?: number;
  declare readonly currentFence?: unknown;
  declare readonly currentState?: unknown;

  constructor(
    message: string,
    readonly current: unknown,
    { cause, ...loss }: OwnershipLoss & LeasefenceErrorOptions = {},
  ) {
    super(message, { cause });
    Object.assign(this, loss);
  }
}

/** What a fence refusal says: which record refused, by which rule, why, and whether it proves a newer claim. */
interface FenceRejection {
  readonly tableName?: string;
  readonly rule?: FenceRule['kind'];
  readonly reason?: FenceRejectReason;
  /** True when the reason proves a newer claim wrote the record: the attempt is superseded (lost ownership). */
  readonly superseded?: boolean;
  /** The fence of the claim that tried to write, and its sequence number for sequenced writes. */
  readonly fence?: number;
  readonly seq?: number;
  /** The record's stored writer epoch and sequence number, as read back. */
  readonly recordEpoch?: unknown;
  readonly recordSeq?: unknown;
  /** For a fenced batch: the per-record account (a FencedBatchReport). */
  readonly report?: unknown;
}

/** A protected record holds a writer epoch at or above mine: a newer claim wrote it. Stop. */
class FenceRejectedError extends leasefenceError('fence.rejected') {
  declare readonly tableName?: string;
  declare readonly rule?: FenceRule['kind'];
  declare readonly reason?: FenceRejectReason;
  declare readonly superseded?: boolean;
  declare readonly fence?: number;
  declare readonly seq?: number;
  declare readonly recordEpoch?: unknown;
  declare readonly recordSeq?: unknown;
  declare readonly report?: unknown;

  constructor(
    message: string,
    readonly current: unknown,
    { cause, ...rejection }: FenceRejection & LeasefenceErrorOptions = {},
  ) {
    super(message, { cause });
    Object.assign(this, rejection);
  }
}

/** What a refused business condition says: which write, and which expected attributes did not hold. */
interface BusinessRefusal {
  readonly tableName?: string;
  /** The expected attributes that did not hold (empty when the record changed between write and read-back). */
  readonly unmet?: string[];
  readonly exists?: boolean;
  /** In a fenced transaction: the index and kind of the refused write. */
  readonly index?: number;
  readonly kind?: string;
  /** For a fenced batch: the per-record account (a FencedBatchReport). */
  readonly report?: unknown;
}

/** The fence allowed the write but the caller's own business condition did not. */
class BusinessConditionError extends leasefenceError('business.condition') {
  declare readonly tableName?: string;
  declare readonly unmet?: string[];
  declare readonly exists?: boolean;
  declare readonly index?: number;
  declare readonly kind?: string;
  declare readonly report?: unknown;

  constructor(
    message: string,
    readonly current: unknown,
    { cause, ...refusal }: BusinessRefusal & LeasefenceErrorOptions = {},
  ) {
    super(message, { cause });
    Object.assign(this, refusal);
  }
}

/** The item does not exist. `identity` names the item looked for, when it is one work item. */
class ItemNotFoundError extends leasefenceError('item.not_found') {
  constructor(
    message: string,
    readonly identity?: { readonly tenantId: string; readonly operationId: string },
  ) {
    super(message);
  }
}

/** The requested transition is not allowed from the item's current state (an admin 409). */
class IllegalTransitionError extends leasefenceError('transition.illegal') {
  constructor(
    message: string,
    readonly current: unknown,
  ) {
    super(message);
  }
}

/**
 * An operator action needs an explicit statement it did not carry (e.g. retrying a class D item whose effect
 * may have happened needs "the effect did not happen"). Nothing was changed (an admin 409).
 */
class OperatorStatementRequiredError extends leasefenceError('transition.statement_required') {
  constructor(
    message: string,
    readonly statement: string,
    readonly current: unknown,
  ) {
    super(message);
  }
}

/**
 * The statement "the effect did not happen" came while a holder of the job's last claim may still be running (its
 * Lambda invocation can outlive its lease until the worker's timeout), so its late call would be a second attempt
 * beside the requeued one. Refused inside the write; nothing was changed (an admin 409). `acceptedFrom` (epoch ms)
 * is when the statement will be accepted; `current` is the row as read back after the refusal.
 */
class StatementTooEarlyError extends leasefenceError('transition.statement_too_early') {
  constructor(
    message: string,
    readonly acceptedFrom: number,
    readonly current: unknown,
  ) {
    super(message);
  }
}

/** The claim whose lease is in doubt. */
interface LeaseDoubt {
  readonly fence?: number;
  readonly leaseExpiresAt?: number;
}

/**
 * The attempt is in lease doubt: a renewal failed, or the local lease deadline passed without a confirmed
 * renewal, so another worker may already hold the job. No new effect starts (no record write, transaction or
 * step is sent); the attempt ends without completing and the lease lapses to the next claim.
 */
class LeaseInDoubtError extends leasefenceError('lease.in_doubt') {
  declare readonly fence?: number;
  declare readonly leaseExpiresAt?: number;

  constructor(message: string, { cause, ...doubt }: LeaseDoubt & LeasefenceErrorOptions = {}) {
    super(message, { cause });
    Object.assign(this, doubt);
  }
}

/** A job definition lacks a control its target class requires; refused at definition time. */
class JobDefinitionError extends leasefenceError('job.definition') {}

/** The engine lacks a capability the operation needs (e.g. TransactWriteItems on dynalite). */
class CapabilityMissingError extends leasefenceError('engine.capability') {}

/** Thrown by a job: a confirmed failure that retrying cannot fix ▶ failed_terminal, recorded with `errorCode`. */
class TerminalJobError extends leasefenceError('job.terminal') {
  constructor(
    readonly errorCode: string,
    message: string,
    options: LeasefenceErrorOptions = {},
  ) {
    super(message, options);
  }
}

/**
 * Thrown by a job: a confirmed failure where the effect did NOT happen ▶ retry with backoff (terminal when
 * exhausted), recorded with `errorCode`.
 */
class RetryableJobError extends leasefenceError('job.retryable') {
  constructor(
    readonly errorCode: string,
    message: string,
    options: LeasefenceErrorOptions = {},
  ) {
    super(message, options);
  }
}

/**
 * Thrown by a job: the effect may or may not have happened (timeout after sending, transport error).
 * Class C retries only after reconcile; class D (and any job without attempts left) parks as unknown.
 */
class AmbiguousOutcomeError extends leasefenceError('job.ambiguous') {}

/** The deployment is missing something (e.g. no payload resolver for payloadRef jobs); the message is redelivered. */
class ConfigurationError extends leasefenceError('configuration') {
  constructor(message: string) {
    super(message);
  }
}

/** The key of a work item holds something that is not a work item (another writer shares the table). Nothing was written. */
class UnexpectedItemError extends leasefenceError('item.unexpected') {
  constructor(
    message: string,
    readonly current: unknown,
  ) {
    super(message);
  }
}

/** A fenced transaction was cancelled for a reason retrying cannot fix (e.g. a validation error); nothing was written. */
class TransactionCancelledError extends leasefenceError('transaction.cancelled') {
  declare readonly label?: string;
  /** The cancellation reason codes DynamoDB returned, one per write. */
  declare readonly codes?: readonly string[];

  constructor(
    message: string,
    { cause, ...detail }: { label?: string; codes?: readonly string[] } & LeasefenceErrorOptions = {},
  ) {
    super(message, { cause });
    Object.assign(this, detail);
  }
}

/** A transaction's request token was reused with other parameters (a step re-run differently); nothing was written. */
class TransactionTokenReusedError extends leasefenceError('transaction.token_reused') {
  declare readonly label?: string;
  declare readonly fence?: number;

  constructor(message: string, { cause, ...detail }: { label?: string; fence?: number } & LeasefenceErrorOptions = {}) {
    super(message, { cause });
    Object.assign(this, detail);
  }
}

/** A fenced batch stopped with writes failed for reasons other than the fence or a condition; `report` says which. */
class BatchIncompleteError extends leasefenceError('fenced_batch.incomplete') {
  declare readonly report?: unknown;

  constructor(message: string, { cause, ...detail }: { report?: unknown } & LeasefenceErrorOptions = {}) {
    super(message, { cause });
    Object.assign(this, detail);
  }
}

/**
 * A job asked `ctx.enqueue` for a successor leasefence will not write (unknown job type, payload failing its schema
 * or too large, a name that makes no valid identity, the same identity with another payload, too many): thrown
 * inside `run`, nothing written; the attempt ends failed_terminal with errorCode `successor_refused`.
 */
class SuccessorRefusedError extends leasefenceError('successor.refused') {
  constructor(
    message: string,
    readonly issues: InputIssue[] = [],
    options: LeasefenceErrorOptions = {},
  ) {
    super(message, options);
  }
}

/**
 * `ctx.rateLimit(provider)` found the budget empty for longer than a job waits in process: thrown inside `run`,
 * nothing was taken. The runtime gives the attempt back (the job goes back to queued with a delayed wake-up after
 * `retryAfterMs`): a budget wait is never a failure. A job that catches it must rethrow it.
 */
class RateLimitedError extends leasefenceError('flow.rate_limited') {
  constructor(
    message: string,
    readonly provider: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** Why an approval was refused (nothing was changed). */
type ApprovalRefusal =
  | 'not_awaiting_approval'
  | 'payload_hash_mismatch'
  | 'approver_is_producer'
  | 'approval_expired'
  | 'approval_not_open';

/**
 * An approval the row refused inside its conditional write: the job no longer awaits approval (decided, cancelled,
 * expired), its payload hash is not the one the approver saw (an approval never covers another payload), or the
 * approver may not approve it (`not-producer`: the producer itself, or a producer or approver that is not known), its
 * window closed (`approval_expired`), or no worker has yet opened its approval record (`approval_not_open`: the job's
 * message has not been delivered yet; try again once it has). Nothing was changed (an admin 409). `current` is the row as read back after the refusal.
 */
class ApprovalRefusedError extends leasefenceError('approval.refused') {
  constructor(
    message: string,
    readonly refusal: ApprovalRefusal,
    readonly current: unknown,
  ) {
    super(message);
  }
}

/**
 * The one list of the errors the library throws, by `ErrorCode` key. `ErrorCode`, `LeasefenceErrorCode` and
 * `AnyLeasefenceError` are derived from it: adding an error is its class (`extends leasefenceError(code)`) and
 * one entry here.
 */
const LEASEFENCE_ERRORS = {
  invalidInput: InvalidInputError,
  payloadConflict: PayloadConflictError,
  ownershipLost: OwnershipLostError,
  fenceRejected: FenceRejectedError,
  businessCondition: BusinessConditionError,
  itemNotFound: ItemNotFoundError,
  unexpectedItem: UnexpectedItemError,
  illegalTransition: IllegalTransitionError,
  statementRequired: OperatorStatementRequiredError,
  statementTooEarly: StatementTooEarlyError,
  leaseInDoubt: LeaseInDoubtError,
  jobDefinition: JobDefinitionError,
  capabilityMissing: CapabilityMissingError,
  terminalJob: TerminalJobError,
  retryableJob: RetryableJobError,
  ambiguousOutcome: AmbiguousOutcomeError,
  configuration: ConfigurationError,
  transactionCancelled: TransactionCancelledError,
  transactionTokenReused: TransactionTokenReusedError,
  batchIncomplete: BatchIncompleteError,
  successorRefused: SuccessorRefusedError,
  approvalRefused: ApprovalRefusedError,
  rateLimited: RateLimitedError,
} as const;

type ErrorTable = typeof LEASEFENCE_ERRORS;

/** Every `code` a library error carries, by name: `error.code` narrows to one of these. */
const ErrorCode = Object.fromEntries(Object.entries(LEASEFENCE_ERRORS).map(([key, Class]) => [key, Class.code])) as {
  readonly [Key in keyof ErrorTable]: ErrorTable[Key]['code'];
};

/** The union of every library error's `code`. */
type LeasefenceErrorCode = ErrorTable[keyof ErrorTable]['code'];
/** The same union as LeasefenceErrorCode, under the name of the code map. */
type ErrorCode = LeasefenceErrorCode;

/** Every error class the library throws, for callers that map them (e.g. to HTTP statuses): `code` narrows it. */
type AnyLeasefenceError = InstanceType<ErrorTable[keyof ErrorTable]>;

export {
  AmbiguousOutcomeError,
  type AnyLeasefenceError,
  type ApprovalRefusal,
  ApprovalRefusedError,
  BatchIncompleteError,
  BusinessConditionError,
  type BusinessRefusal,
  CapabilityMissingError,
  ConfigurationError,
  ErrorCode,
  FenceRejectedError,
  type FenceRejection,
  IllegalTransitionError,
  type InputIssue,
  InvalidInputError,
  ItemNotFoundError,
  isLeasefenceError,
  JobDefinitionError,
  LEASEFENCE_ERRORS,
  type LeaseDoubt,
  LeasefenceError,
  type LeasefenceErrorClass,
  type LeasefenceErrorCode,
  type LeasefenceErrorOptions,
  LeaseInDoubtError,
  leasefenceError,
  OperatorStatementRequiredError,
  type OwnershipLoss,
  OwnershipLostError,
  PayloadConflictError,
  RateLimitedError,
  RetryableJobError,
  StatementTooEarlyError,
  SuccessorRefusedError,
  TerminalJobError,
  TransactionCancelledError,
  TransactionTokenReusedError,
  UnexpectedItemError,
};
