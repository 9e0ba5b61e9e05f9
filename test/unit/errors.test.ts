import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  AmbiguousOutcomeError,
  type AnyLeasefenceError,
  ApprovalRefusedError,
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
  isLeasefenceError,
  JobDefinitionError,
  LEASEFENCE_ERRORS,
  LeasefenceError,
  type LeasefenceErrorCode,
  LeaseInDoubtError,
  OperatorStatementRequiredError,
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
} from '../../lib/errors.js';

/** One instance of every error class, as the library throws it. */
const samples: Array<[new (...args: never[]) => LeasefenceError, AnyLeasefenceError]> = [
  [InvalidInputError, new InvalidInputError('bad', [{ path: 'x', message: 'bad' }])],
  [PayloadConflictError, new PayloadConflictError('conflict', {})],
  [OwnershipLostError, new OwnershipLostError('lost', undefined)],
  [FenceRejectedError, new FenceRejectedError('fenced', {})],
  [BusinessConditionError, new BusinessConditionError('refused', {})],
  [ItemNotFoundError, new ItemNotFoundError('missing')],
  [UnexpectedItemError, new UnexpectedItemError('not a work item', {})],
  [IllegalTransitionError, new IllegalTransitionError('illegal', {})],
  [OperatorStatementRequiredError, new OperatorStatementRequiredError('say it', 'effect_did_not_happen', {})],
  [StatementTooEarlyError, new StatementTooEarlyError('wait', 1_000, {})],
  [LeaseInDoubtError, new LeaseInDoubtError('renewal failed')],
  [JobDefinitionError, new JobDefinitionError('no reconcile')],
  [CapabilityMissingError, new CapabilityMissingError('no transactions')],
  [TerminalJobError, new TerminalJobError('card_declined', 'declined')],
  [RetryableJobError, new RetryableJobError('throttled', 'later')],
  [RateLimitedError, new RateLimitedError('budget empty', 'stripe', 1_500)],
  [AmbiguousOutcomeError, new AmbiguousOutcomeError('timeout')],
  [ConfigurationError, new ConfigurationError('no table')],
  [TransactionCancelledError, new TransactionCancelledError('cancelled')],
  [TransactionTokenReusedError, new TransactionTokenReusedError('token reused')],
  [BatchIncompleteError, new BatchIncompleteError('incomplete')],
  [SuccessorRefusedError, new SuccessorRefusedError('refused', [{ path: 'jobType', message: 'not registered' }])],
  [ApprovalRefusedError, new ApprovalRefusedError('refused', 'payload_hash_mismatch', { state: 'awaiting_approval' })],
];

describe('errors', () => {
  it('every code has exactly one class, and each is caught by its class and as a LeasefenceError', () => {
    const codes = samples.map(([, error]) => error.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(Object.values(ErrorCode).sort());
    for (const [Class, error] of samples) {
      try {
        throw error;
      } catch (caught) {
        expect(caught).toBeInstanceOf(Class);
        expect(caught).toBeInstanceOf(LeasefenceError);
        expect((caught as Error).name).toBe(Class.name);
        for (const [Other] of samples) if (Other !== Class) expect(caught).not.toBeInstanceOf(Other);
      }
    }
  });

  it('code is a typed union that narrows to the class', () => {
    expectTypeOf(new OwnershipLostError('lost', undefined).code).toEqualTypeOf<'ownership.lost'>();
    expectTypeOf<LeasefenceError['code']>().toEqualTypeOf<ErrorCode>();
    // Compiles only because checking `code` narrows to the class that has `issues` / `current`.
    const issuesOf = (error: AnyLeasefenceError) => (error.code === 'input.invalid' ? error.issues : []);
    expectTypeOf(issuesOf).returns.toEqualTypeOf<InputIssue[]>();
    const currentOf = (error: AnyLeasefenceError) => (error.code === 'ownership.lost' ? error.current : undefined);
    expect(issuesOf(new InvalidInputError('bad', [{ path: 'x', message: 'y' }]))).toEqual([
      { path: 'x', message: 'y' },
    ]);
    expect(currentOf(new OwnershipLostError('lost', { fence: 4 }))).toEqual({ fence: 4 });
    // @ts-expect-error a code that is not in the union does not compile
    const unknownCode: ErrorCode = 'job.weird';
    expect(unknownCode).toBe('job.weird');
  });

  it('the table is the one list: ErrorCode and every class the module exports come from it', async () => {
    const exported = Object.values(await import('../../lib/errors.js')).filter(
      (value): value is typeof LeasefenceError =>
        typeof value === 'function' && value.prototype instanceof LeasefenceError,
    );
    expect(new Set(exported)).toEqual(new Set(Object.values(LEASEFENCE_ERRORS)));
    for (const [key, Class] of Object.entries(LEASEFENCE_ERRORS)) {
      expect(ErrorCode[key as keyof typeof ErrorCode]).toBe(Class.code);
    }
    expectTypeOf<AnyLeasefenceError['code']>().toEqualTypeOf<LeasefenceErrorCode>();
    expectTypeOf<ErrorCode>().toEqualTypeOf<LeasefenceErrorCode>();
  });

  it('carries typed fields, no untyped context bag', () => {
    const terminal = new TerminalJobError('card_declined', 'declined');
    expectTypeOf(terminal.errorCode).toEqualTypeOf<string>();
    expect(terminal.errorCode).toBe('card_declined');
    const fenced = new FenceRejectedError('fenced', {}, { reason: 'newer_claim', superseded: true, fence: 3 });
    expect(fenced).toMatchObject({ reason: 'newer_claim', superseded: true, fence: 3 });
    for (const [, error] of samples) expect(error).not.toHaveProperty('context');
  });

  it('isLeasefenceError recognises an error of a second copy of the package by brand and code, where instanceof does not', async () => {
    vi.resetModules();
    const copy = (await import('../../lib/errors.js')) as typeof import('../../lib/errors.js');
    expect(copy.TerminalJobError).not.toBe(TerminalJobError);
    const foreign = new copy.TerminalJobError('card_declined', 'declined');
    // The premise: a second module instance has its own classes, so instanceof fails across the copies.
    expect(foreign).not.toBeInstanceOf(TerminalJobError);
    expect(foreign).not.toBeInstanceOf(LeasefenceError);
    expect(isLeasefenceError(foreign)).toBe(true);
    expect(isLeasefenceError(foreign, TerminalJobError)).toBe(true);
    expect(isLeasefenceError(foreign, RetryableJobError)).toBe(false);
    if (isLeasefenceError(foreign, TerminalJobError)) expectTypeOf(foreign).toEqualTypeOf<TerminalJobError>();
    expect(copy.isLeasefenceError(new RetryableJobError('throttled', 'later'), copy.RetryableJobError)).toBe(true);
  });

  it('isLeasefenceError refuses look-alikes: a plain error with a code, a plain object, null', () => {
    const lookalike = Object.assign(new Error('declined'), { code: 'job.terminal', errorCode: 'card_declined' });
    for (const value of [lookalike, { code: 'job.terminal' }, null, undefined, 'job.terminal']) {
      expect(isLeasefenceError(value)).toBe(false);
      expect(isLeasefenceError(value, TerminalJobError)).toBe(false);
    }
  });

  it('lib/ throws no plain Error: every error it creates is a named LeasefenceError subclass', () => {
    const root = fileURLToPath(new URL('../../lib', import.meta.url));
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    // The one exception: a stack check's injected lost response must look like the network timeout the AWS SDK
    // retries (name TimeoutError), and it never leaves the SDK's retry loop as a leasefence error.
    const IMITATES_THE_SDK = ['fault-injection/injector.ts'];
    const offenders = files
      .filter((file) => !IMITATES_THE_SDK.includes(file))
      .filter((file) => /new (Leasefence)?Error\(/.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
