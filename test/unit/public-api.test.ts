import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  AnyJobDefinition,
  Clock,
  ErrorCode,
  FenceRejectReason,
  JobContext,
  JobDefinition,
  LeasefenceConfig,
  MessageResult,
  RecordRef,
  SendJobInput,
  SharedWrite,
  SqsWorkerHandlerOptions,
  SuccessorOptions,
} from '../../lib/index.js';
import * as leasefence from '../../lib/index.js';

describe('the root entry point', () => {
  it('exports exactly the public runtime API, nothing internal', () => {
    expect(Object.keys(leasefence).sort()).toEqual(
      [
        // errors
        'AmbiguousOutcomeError',
        'BatchIncompleteError',
        'BusinessConditionError',
        'CapabilityMissingError',
        'ConfigurationError',
        'ErrorCode',
        'FenceRejectedError',
        'IllegalTransitionError',
        'InvalidInputError',
        'ItemNotFoundError',
        'JobDefinitionError',
        'LeasefenceError',
        'OwnershipLostError',
        'PayloadConflictError',
        'RateLimitedError',
        'RetryableJobError',
        'StatementTooEarlyError',
        'SuccessorRefusedError',
        'TerminalJobError',
        'TransactionCancelledError',
        'TransactionTokenReusedError',
        'UnexpectedItemError',
        'isLeasefenceError',
        'OperatorStatementRequiredError',
        'LeaseInDoubtError',
        // job definitions
        'defineJob',
        'TargetClass',
        'FenceRejectReason',
        'WorkState',
        // handler factories and their configuration
        'createSqsWorkerHandler',
        'createSweeperHandler',
        'createAdminHandler',
        'EnvironmentVariable',
        'readConfig',
        // shadow mode beside an existing consumer
        'shadowHandler',
        'shadowRecordHandler',
        'ShadowFinding',
        // alert routes: the construct's alertRoutes from the job definitions
        'alertRoutesOf',
        // producer
        'sendJob',
        'enqueueTransactItems',
        'outboxReplay',
        'PayloadStore',
        // schedules
        'defineSchedule',
        'defineSchedules',
        'enqueueOccurrence',
        'occurrenceAt',
        'payloadHash',
        'parseIdentity',
        'formatIdentity',
        // clocks
        'ManualClock',
        'systemClock',
      ].sort(),
    );
  });

  it('leaks none of the internals it used to export', () => {
    for (const internal of ['writeAuditRecord', 'RETRYABLE_STATES', 'WorkerRuntime', 'WorkItemStore', 'JobRegistry']) {
      expect(leasefence).not.toHaveProperty(internal);
    }
  });

  it('exports the types a user needs (checked by tsc)', () => {
    expectTypeOf<JobContext<unknown>['enqueue']>().parameter(2).toEqualTypeOf<SuccessorOptions | undefined>();
    expectTypeOf<SqsWorkerHandlerOptions['jobs']>().toEqualTypeOf<readonly AnyJobDefinition[]>();
    expectTypeOf<SqsWorkerHandlerOptions['config']>().toEqualTypeOf<LeasefenceConfig | undefined>();
    expectTypeOf<JobDefinition<{ a: string }>['run']>().parameter(0).toEqualTypeOf<JobContext<{ a: string }>>();
    expectTypeOf<RecordRef>().toHaveProperty('tableName');
    expectTypeOf<SharedWrite['kind']>().toEqualTypeOf<'update' | 'put' | 'check'>();
    expectTypeOf<SendJobInput>().toHaveProperty('operationId');
    expectTypeOf<MessageResult>().not.toBeAny();
    expectTypeOf<Clock['now']>().returns.toBeNumber();
    expectTypeOf<FenceRejectReason>().toExtend<string>();
    expectTypeOf<'ownership.lost'>().toExtend<ErrorCode>();
    expect(leasefence.FenceRejectReason.newer_claim).toBe('newer_claim');
  });
});
