import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RetryableJobError } from '../../lib/errors.js';
import type { JobIdentity } from '../../lib/identity.js';
import type { JobContext, JobDefinition, ReconcileResult } from '../../lib/job-definition.js';
import type { Gate } from './gate.js';
import { instrumentProvider, operationKey, type ProviderEvent, type ProviderFaults } from './provider-probe.js';
import type { WorkerFaults } from './worker-faults.js';

/** What a job's reconcile answered, and what the provider held for the operation at that moment. */
interface ReconcileAnswer {
  readonly worker: string;
  readonly scenario: string;
  readonly sample: number;
  readonly attempt: number;
  readonly status: ReconcileResult['status'];
  /** Effects the provider held for the operation when reconcile answered (class C: distinct keys). */
  readonly held: number;
}

/** The attempt numbers at which run() was called, per operation. */
interface RunCall {
  readonly operation: string;
  readonly attempt: number;
}

/** What the bench tracks of one worker while it runs: faults, the delivery in flight, whether it is paused. */
interface WorkerState {
  readonly faults: WorkerFaults;
  readonly providerFaults: ProviderFaults;
  identity: JobIdentity | undefined;
  inFlight: number;
  paused: boolean;
}

/** One `ctx.enqueue` call a job made: by which worker, for which parent attempt and fence, and what it asked for. */
interface EnqueueCall {
  readonly worker: string;
  readonly scenario: string;
  readonly sample: number;
  /** The parent's operation (operationKey) and the claim it ran under. */
  readonly parent: string;
  readonly fence: number;
  readonly attempt: number;
  readonly jobType: string;
  /** The successor's operation id, or undefined when ctx.enqueue refused it (the error is recorded). */
  readonly operationId: string | undefined;
}

/** What the observed job records into (the conformance bench). */
interface JobObserver {
  readonly job: JobDefinition<unknown>;
  readonly providerEvents: ProviderEvent[];
  readonly reconciles: ReconcileAnswer[];
  readonly runCalls: RunCall[];
  readonly enqueues: EnqueueCall[];
  /** The running scenario and sample. */
  running(): { scenario: string; sample: number };
  /** Effects the provider holds for an operation now. */
  held(operation: string): number;
  recordError(worker: string, error: unknown): void;
}

/** What one simulated worker's copy of the job is wired to. */
interface ObservedJobOptions {
  readonly worker: string;
  readonly state: WorkerState;
  /** The client the job's provider is built on (its own listener of the engine boundary). */
  readonly providerClient: DynamoDBDocumentClient;
  /** Holds the first run/reconcile right after the claim until released. */
  readonly pause: Gate | undefined;
}

/**
 * The job's context with `ctx.enqueue` observed: every successor it asks for (or is refused) is recorded with the
 * parent's fence, so the successor scenarios know which job types enqueue successors and whose they are. The
 * rest of the context is the runtime's own (a prototype link: its lazy getters stay lazy).
 */
function withObservedEnqueue(bench: JobObserver, worker: string, context: JobContext<unknown>): JobContext<unknown> {
  const record = (jobType: string, operationId: string | undefined) =>
    bench.enqueues.push({
      worker,
      ...bench.running(),
      parent: operationKey(context.identity),
      fence: context.fence,
      attempt: context.attempt,
      jobType,
      operationId,
    });
  const enqueue: JobContext<unknown>['enqueue'] = (jobType, payload, options) => {
    try {
      const identity = context.enqueue(jobType, payload, options);
      record(jobType, identity.operationId);
      return identity;
    } catch (error) {
      record(jobType, undefined);
      throw error;
    }
  };
  return Object.create(context, { enqueue: { value: enqueue } }) as JobContext<unknown>;
}

/**
 * The job as one simulated worker runs it: paused when asked, the attempts at which run() ran recorded, every
 * reconcile answer recorded with what the provider held at that moment, its errors recorded, its provider
 * probed (calls counted, faults armed), and a retryable failure injected after run() when the worker has one armed.
 */
function observedJob(bench: JobObserver, options: ObservedJobOptions): JobDefinition<unknown> {
  const { worker, state, providerClient, pause } = options;
  const job = bench.job;
  const at = () => ({ worker, ...bench.running() });
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    state.paused = true;
    try {
      await pause?.hold();
    } finally {
      state.paused = false;
    }
    try {
      return await work();
    } catch (error) {
      bench.recordError(worker, error);
      throw error;
    }
  };
  const run = (context: JobContext<unknown>) =>
    guarded(async () => {
      bench.runCalls.push({ operation: operationKey(context.identity), attempt: context.attempt });
      const outcome = await job.run(withObservedEnqueue(bench, worker, context));
      if (state.faults.failAfterRun) {
        state.faults.failAfterRun = false;
        throw new RetryableJobError('conformance_retry', 'a retryable failure injected after run() returned');
      }
      return outcome;
    });
  const { reconcile, provider } = job;
  return {
    ...job,
    run,
    ...(reconcile
      ? {
          reconcile: (context) =>
            guarded(async () => {
              const operation = operationKey(context.identity);
              bench.providerEvents.push({
                seq: bench.providerEvents.length,
                ...at(),
                kind: 'reconcile',
                method: 'reconcile',
                operation,
                key: undefined,
                reached: true,
                took: false,
              });
              const answer = await reconcile(context);
              bench.reconciles.push({
                ...at(),
                attempt: context.attempt,
                status: answer.status,
                held: bench.held(operation),
              });
              return answer;
            }),
        }
      : {}),
    ...(provider
      ? {
          provider: {
            effects: provider.effects,
            create: () =>
              instrumentProvider(provider.create({ client: providerClient }), provider.effects, {
                worker,
                events: bench.providerEvents,
                running: () => ({ ...bench.running(), identity: state.identity }),
                faults: state.providerFaults,
                workerFaults: state.faults,
              }),
          },
        }
      : {}),
  };
}

export { type EnqueueCall, type JobObserver, observedJob, type ReconcileAnswer, type RunCall, type WorkerState };
