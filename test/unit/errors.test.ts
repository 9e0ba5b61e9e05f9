import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
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
  LeaseInDoubtError,
  OperatorStatementRequiredError,
  OwnershipLostError,
  PayloadConflictError,
  RetryableJobError,
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
  [LeaseInDoubtError, new LeaseInDoubtError('renewal failed')],
  [JobDefinitionError, new JobDefinitionError('no reconcile')],
  [CapabilityMissingError, new CapabilityMissingError('no transactions')],
  [TerminalJobError, new TerminalJobError('card_declined', 'declined')],
  [RetryableJobError, new RetryableJobError('throttled', 'later')],
  [AmbiguousOutcomeError, new AmbiguousOutcomeError('timeout')],
  [ConfigurationError, new ConfigurationError('no table')],
  [TransactionCancelledError, new TransactionCancelledError('cancelled')],
  [TransactionTokenReusedError, new TransactionTokenReusedError('token reused')],
  [BatchIncompleteError, new BatchIncompleteError('incomplete')],
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

  it('lib/ throws no plain Error: every error it creates is a named LeasefenceError subclass', () => {
    const root = fileURLToPath(new URL('../../lib', import.meta.url));
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const offenders = files.filter((file) => /new (Leasefence)?Error\(/.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
